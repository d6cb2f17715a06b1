import { Clock, DomainError, IdGenerator, stringifyYielding } from '@app/core';
import { SceneDeletionHooks, ScenesService } from '@app/scenes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CAMERA_PATH_LIMITS } from '@scene-studio/camera-path';
import { documentErrors, summaryOf } from './camera-path-rules';
import { CameraPathEntity, CameraPathListed } from './camera-path.entity';
import { CameraPathErrors } from './camera-paths.errors';
import { CameraPathChange, CameraPathScope, CameraPathsRepository } from './camera-paths.repository';
import { CameraPathKind, CreateCameraPathDto, UpdateCameraPathDto } from './dto/camera-path.dto';
import { CameraPathSummary, SavedCameraPath } from './dto/camera-path.response';
import { CameraPathIdPrefix } from './camera-paths.ids';

/** The organization and scene a call is scoped to (the studio session's). */
export type { CameraPathScope } from './camera-paths.repository';

/**
 * Camera paths saved per scene (docs/camera-paths.md, "Saved camera paths"). Every call is scoped
 * to one organization and one scene, those of the studio session asking; a path outside that
 * scope does not exist for it.
 */
@Injectable()
export class CameraPathsService implements OnModuleInit {
  constructor(
    private readonly paths: CameraPathsRepository,
    private readonly scenes: ScenesService,
    private readonly deletionHooks: SceneDeletionHooks,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** A scene's paths go with it, in the transaction that deletes it. */
  onModuleInit(): void {
    this.deletionHooks.register('camera-paths', (tx, scene) =>
      this.paths.deleteForScene(tx, { organizationId: scene.organizationId, sceneId: scene.id }),
    );
  }

  async list(scope: CameraPathScope, kind?: CameraPathKind): Promise<CameraPathSummary[]> {
    return (await this.paths.list(scope, kind)).map(toSummary);
  }

  async get(scope: CameraPathScope, id: string): Promise<SavedCameraPath> {
    const found = await this.paths.find(scope, id);
    if (!found) throw DomainError.notFound();
    return toSaved(found);
  }

  /**
   * Saves a new path. The scene's row is locked for the transaction, as its deletion locks it
   * first: a path is never written for a scene deleted meanwhile (its deletion hook would have
   * run already), and two saves cannot both take the last place under the per-scene limit.
   */
  async create(scope: CameraPathScope, dto: CreateCameraPathDto): Promise<SavedCameraPath> {
    const { documentJson, ...change } = await checkedChange(dto.kind, dto);
    const now = this.clock.now();
    const path: CameraPathEntity = {
      id: this.ids.generate(CameraPathIdPrefix.CameraPath),
      organizationId: scope.organizationId,
      sceneId: scope.sceneId,
      kind: dto.kind,
      ...change,
      createdAt: now,
      updatedAt: now,
    };
    await this.paths.transaction(async (tx) => {
      if (!(await this.scenes.lockForWrite(tx, scope))) throw DomainError.notFound();
      if ((await this.paths.countForScene(tx, scope)) >= CAMERA_PATH_LIMITS.perScene) throw CameraPathErrors.tooMany();
      await this.paths.insert(tx, path, documentJson);
    });
    return toSaved(path);
  }

  /** New name and document; the kind stays, and the document must suit it. */
  async update(scope: CameraPathScope, id: string, dto: UpdateCameraPathDto): Promise<SavedCameraPath> {
    const kind = await this.paths.kindOf(scope, id);
    if (!kind) throw DomainError.notFound();
    const saved = await this.paths.update(scope, id, await checkedChange(kind, dto), this.clock.now());
    if (!saved) throw DomainError.notFound();
    return toSaved(saved);
  }

  /** Idempotent and silent, like every DELETE of our APIs (docs/api.md, Conventions). */
  async remove(scope: CameraPathScope, id: string): Promise<void> {
    await this.paths.delete(scope, id);
  }
}

/**
 * The change a valid document makes. Its JSON text is made here, once, a slice of its samples at a
 * time (a take's megabytes would otherwise hold the event loop while TypeORM serialised them).
 */
async function checkedChange(kind: CameraPathKind, dto: UpdateCameraPathDto): Promise<CameraPathChange> {
  const errors = documentErrors(kind, dto.document);
  if (errors.length > 0) throw CameraPathErrors.invalidDocument(errors);
  return { name: dto.name, document: dto.document, documentJson: await stringifyYielding(dto.document), ...summaryOf(dto.document) };
}

function toSummary(p: CameraPathListed): CameraPathSummary {
  return {
    cameraPathId: p.id,
    kind: p.kind,
    name: p.name,
    durationMs: p.durationMs,
    keyframeCount: p.keyframeCount,
    sampleCount: p.sampleCount,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

function toSaved(p: CameraPathEntity): SavedCameraPath {
  return {
    cameraPathId: p.id,
    kind: p.kind,
    name: p.name,
    document: p.document,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
