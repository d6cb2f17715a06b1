import { DomainError, JsonBodyGuard } from '@app/core';
import { SessionWithScene, StudioSessionView, StudioView } from '@app/embed-sessions';
import { ImageAssetsService } from '@app/image-assets';
import { EditSceneDto, ScenesService } from '@app/scenes';
import { EditTurn, SceneOperationsService } from '@app/operations';
import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { studioSchema } from '../openapi/studio-openapi';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StudioEventsHub } from '../events/studio-events.hub';
import { StudioBudgets } from '../limits/studio-budgets';
import { StudioSlots } from '../limits/studio-slots';
import { RequiresCapability, StudioSession, StudioSessionGuard } from './studio-session.guard';
import { CountedAsEdit, StudioWriteBudgetGuard } from './studio-write-budget.guard';

const BINARY = { description: 'The file.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };

/**
 * The studio page's own API, scoped to one session by its secret. Answers are never cached.
 * Writes spend the session's budgets (docs/embed.md, "The studio's limits"). What an answer
 * carries for the session's mode is StudioView's to decide (no prompt or edit history for
 * perform).
 */
@ApiTags('studio')
@Controller('studio-api/v1')
@UseGuards(StudioSessionGuard, StudioWriteBudgetGuard)
export class StudioApiController {
  constructor(
    private readonly scenes: ScenesService,
    private readonly sceneOperations: SceneOperationsService,
    private readonly assets: ImageAssetsService,
    private readonly events: StudioEventsHub,
    private readonly budgets: StudioBudgets,
    private readonly slots: StudioSlots,
  ) {}

  @Get('session')
  @ApiOkResponse({ schema: studioSchema('StudioSession') })
  session(@StudioSession() found: SessionWithScene): StudioSessionView {
    return StudioView.of(found.session.mode).session(found);
  }

  /** The files of a version (kind, type, size, digest): what the page can load for it. */
  @Get('scene/versions/:version/artifacts')
  @ApiOkResponse({ schema: studioSchema('SceneArtifacts') })
  async artifacts(@StudioSession() { scene }: SessionWithScene, @Param('version', ParseIntPipe) version: number) {
    if (!visibleVersion(scene, version)) throw DomainError.notFound();
    const artifacts = await this.scenes.listArtifacts(scene.id, version);
    if (artifacts.length === 0) throw DomainError.notFound();
    return { version, artifacts };
  }

  @Get('scene/versions/:version/artifacts/:kind')
  @ApiProduces('application/octet-stream')
  @ApiOkResponse(BINARY)
  async artifact(
    @StudioSession() { session, scene }: SessionWithScene,
    @Param('version', ParseIntPipe) version: number,
    @Param('kind') kind: string,
    @Res() res: Response,
  ): Promise<void> {
    this.slots.reads.holdUntilClosed(session.id, res);
    const file = visibleVersion(scene, version) ? await this.scenes.openArtifact(scene.id, version, kind) : null;
    if (!file) throw DomainError.notFound();
    res.set({
      'content-type': file.contentType,
      'content-length': String(file.sizeBytes),
      'cache-control': 'no-store',
      etag: `"${file.sha256}"`,
    });
    await sendStream(file.stream, res);
  }

  @Get('scene/versions/:version/scene.glb')
  @ApiProduces('model/gltf-binary')
  @ApiOkResponse(BINARY)
  async sceneFile(
    @StudioSession() { session, scene }: SessionWithScene,
    @Param('version', ParseIntPipe) version: number,
    @Res() res: Response,
  ): Promise<void> {
    this.slots.reads.holdUntilClosed(session.id, res);
    const file = visibleVersion(scene, version) ? await this.scenes.openArtifact(scene.id, version, 'mesh') : null;
    if (!file) throw DomainError.notFound();
    res.set({ 'content-type': 'model/gltf-binary', 'content-length': String(file.sizeBytes), 'cache-control': 'no-store' });
    await sendStream(file.stream, res);
  }

  @Get('scene/versions/:version/spec')
  @ApiOkResponse({
    description: 'The scene spec as stored (libs/generation, scene-spec.ts), as the mode may see it.',
    schema: { type: 'object', additionalProperties: true },
  })
  async spec(
    @StudioSession() { session, scene }: SessionWithScene,
    @Param('version', ParseIntPipe) version: number,
  ): Promise<Record<string, unknown>> {
    const spec = visibleVersion(scene, version) ? await this.scenes.readSpec(scene.id, version) : null;
    if (!spec) throw DomainError.notFound();
    return StudioView.of(session.mode).spec(spec);
  }

  @Get('source-image')
  @ApiOkResponse(BINARY)
  @RequiresCapability('edit')
  async sourceImage(@StudioSession() { session, scene }: SessionWithScene, @Res() res: Response): Promise<void> {
    // Read whole (at most an upload's 20 MiB): the slot bounds how many are in memory at once.
    this.slots.reads.holdUntilClosed(session.id, res);
    const stored = scene.sourceAssetId ? await this.assets.readBytes(scene.sourceAssetId) : null;
    if (!stored) throw DomainError.notFound();
    res.set({ 'content-type': stored.contentType, 'cache-control': 'no-store' }).send(stored.bytes);
  }

  @Get('edits')
  @ApiOkResponse({ schema: studioSchema('EditTurns') })
  @RequiresCapability('edit')
  async edits(@StudioSession() { session, scene }: SessionWithScene): Promise<{ turns: EditTurn[] }> {
    return StudioView.of(session.mode).editHistory(await this.sceneOperations.editTurns(scene.id));
  }

  /** `409 edit_in_progress` while an edit turn of the scene runs; `429` past the session's edits per hour. */
  @Post('edits')
  @HttpCode(202)
  @ApiAcceptedResponse({ schema: studioSchema('CreatedEdit') })
  @RequiresCapability('edit')
  @CountedAsEdit()
  @UseGuards(JsonBodyGuard)
  edit(@StudioSession() { session }: SessionWithScene, @Body() dto: EditSceneDto) {
    return this.sceneOperations.requestEdit(session.organizationId, session.sceneId, dto.instruction, () =>
      this.budgets.spendEdit(session.id),
    );
  }

  /**
   * Reverts the scene to an earlier version: `202` with an edit turn whose result, version n + 1,
   * is version `version` again (docs/embed.md, "Reverting"). The colon is part of the path
   * (AIP-136's custom method, as the partner API's `:cancel`), escaped for Express's router.
   */
  @Post('scene/versions/:version\\:revert')
  @HttpCode(202)
  @ApiBody({ required: false, schema: { type: 'object' } })
  @ApiAcceptedResponse({ schema: studioSchema('CreatedEdit') })
  @RequiresCapability('edit')
  @CountedAsEdit()
  @UseGuards(JsonBodyGuard)
  revert(@StudioSession() { session }: SessionWithScene, @Param('version', ParseIntPipe) version: number) {
    return this.sceneOperations.requestRevert(session.organizationId, session.sceneId, version, () => this.budgets.spendEdit(session.id));
  }

  /**
   * Server-sent events, read by the page with fetch (the secret travels in a header, never a URL);
   * `429` past the session's open streams.
   */
  @Get('events')
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'Server-sent events (docs/embed.md, "Events").',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  stream(@StudioSession() found: SessionWithScene, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.events.open(found, req, res);
  }
}

/**
 * Streams a stored file to the page, from either store, a chunk at a time as the socket takes
 * them (BlobStore.open), so a studio holds at most a few chunks of a large splat per download; the
 * route's read slot bounds how many run at once. A client that goes away ends the read from the
 * store too; a store error after the headers went out can only cut the response.
 */
async function sendStream(stream: Readable, res: Response): Promise<void> {
  try {
    await pipeline(stream, res);
  } catch (e) {
    stream.destroy();
    if (res.headersSent) return void res.destroy();
    // Nothing went out yet: the error filter answers, without this file's headers.
    for (const h of ['content-length', 'etag', 'content-type']) res.removeHeader(h);
    throw e;
  }
}

/** Versions 1 to the scene's current one exist; a later number (an edit still running) does not yet. */
function visibleVersion(scene: SessionWithScene['scene'], version: number): boolean {
  return scene.version !== null && version >= 1 && version <= scene.version;
}
