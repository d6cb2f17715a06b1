import {
  CameraPathScope,
  CameraPathsService,
  CameraPathSummary,
  CreateCameraPathDto,
  ListCameraPathsQuery,
  UpdateCameraPathDto,
  CameraPathIdPrefix,
} from '@app/camera-paths';
import { JsonBodyGuard, ParseIdPipe, sendJsonYielding } from '@app/core';
import { SessionWithScene } from '@app/embed-sessions';
import { Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CAMERA_PATH_KINDS } from '@scene-studio/camera-path';
import type { Response } from 'express';
import { StudioSlots } from '../limits/studio-slots';
import { studioSchema } from '../openapi/studio-openapi';
import { CameraPathBodyReader } from './camera-path-body';
import { CameraPathBody } from './camera-path-body.pipe';
import { RequiresCapability, StudioSession, StudioSessionGuard } from './studio-session.guard';
import { StudioWriteBudgetGuard } from './studio-write-budget.guard';

const CAMERA_PATH_ID = new ParseIdPipe(CameraPathIdPrefix.CameraPath);

/** The session's organization and scene: the only paths it can reach. */
const scopeOf = ({ session }: SessionWithScene): CameraPathScope => ({ organizationId: session.organizationId, sceneId: session.sceneId });

/**
 * Camera paths saved per scene (docs/camera-paths.md): every perform session of the scene sees
 * the same list. Writes spend the session's STUDIO_WRITES_PER_MINUTE (StudioWriteBudgetGuard),
 * then take a write slot and read their bodies, up to 8 MiB (camera-path-body.ts), validated by
 * their DTOs (camera-path-body.pipe.ts). A saved path's answers echo its document, megabytes for a
 * take: they are serialised a slice at a time (sendJsonYielding), and reading one takes a read
 * slot. Answers are never cached.
 */
@ApiTags('studio')
@Controller('studio-api/v1/camera-paths')
@UseGuards(StudioSessionGuard, StudioWriteBudgetGuard)
export class CameraPathsController {
  constructor(
    private readonly paths: CameraPathsService,
    private readonly slots: StudioSlots,
  ) {}

  @Get()
  @ApiQuery({ name: 'kind', required: false, enum: CAMERA_PATH_KINDS })
  @ApiOkResponse({ schema: studioSchema('CameraPathList') })
  @RequiresCapability('perform')
  async list(
    @StudioSession() found: SessionWithScene,
    @Query() query: ListCameraPathsQuery,
  ): Promise<{ cameraPaths: CameraPathSummary[] }> {
    return { cameraPaths: await this.paths.list(scopeOf(found), query.kind) };
  }

  @Post()
  @HttpCode(201)
  @ApiBody({ schema: studioSchema('CreateCameraPath') })
  @ApiCreatedResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  @UseGuards(JsonBodyGuard)
  @UseInterceptors(CameraPathBodyReader)
  async create(@StudioSession() found: SessionWithScene, @CameraPathBody() dto: CreateCameraPathDto, @Res() res: Response): Promise<void> {
    await sendJsonYielding(res, 201, await this.paths.create(scopeOf(found), dto));
  }

  @Get(':cameraPathId')
  @ApiOkResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  async get(
    @StudioSession() found: SessionWithScene,
    @Param('cameraPathId', CAMERA_PATH_ID) id: string,
    @Res() res: Response,
  ): Promise<void> {
    // A take is megabytes once read and parsed: a read slot bounds how many are in memory at once.
    this.slots.reads.holdUntilClosed(found.session.id, res);
    await sendJsonYielding(res, 200, await this.paths.get(scopeOf(found), id));
  }

  @Put(':cameraPathId')
  @ApiBody({ schema: studioSchema('UpdateCameraPath') })
  @ApiOkResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  @UseGuards(JsonBodyGuard)
  @UseInterceptors(CameraPathBodyReader)
  async update(
    @StudioSession() found: SessionWithScene,
    @Param('cameraPathId', CAMERA_PATH_ID) id: string,
    @CameraPathBody() dto: UpdateCameraPathDto,
    @Res() res: Response,
  ): Promise<void> {
    await sendJsonYielding(res, 200, await this.paths.update(scopeOf(found), id, dto));
  }

  @Delete(':cameraPathId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, or already gone.' })
  @RequiresCapability('perform')
  async remove(@StudioSession() found: SessionWithScene, @Param('cameraPathId', CAMERA_PATH_ID) id: string): Promise<void> {
    await this.paths.remove(scopeOf(found), id);
  }
}
