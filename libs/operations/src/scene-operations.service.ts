import { afterCommit, Clock, DomainError, Idempotent, IdempotencyKey, IdempotentRequests, IdGenerator, Tx } from '@app/core';
import { ImageAssetsService } from '@app/image-assets';
import {
  CreateSceneDto,
  isExternalRefConflict,
  SceneDeletionHooks,
  SceneEntity,
  SceneErrors,
  SceneIdPrefix,
  SceneStore,
} from '@app/scenes';
import { UsageService } from '@app/tenancy';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { AdmissionSignal } from './admission-signal';
import { OperationAcceptedResponse } from './dto/operation.response';
import { OperationFailures } from './operation-error';
import { OperationOutcomes } from './operation-outcomes';
import { OperationEntity } from './operation.entity';
import { OperationIdPrefix } from './operations.ids';
import { OperationsRepository } from './operations.repository';
import { SceneChanges } from './scene-changes';
import { SceneJobScheduler } from './scene-job-scheduler';

/**
 * Asked once an edit turn is sure to start, inside its transaction: throw (a `DomainError`) to
 * refuse it, with nothing created. The studio spends the session's edit budget here.
 */
export type EditAdmission = () => Promise<unknown>;

/**
 * The operations that make and change a scene: its creation (the scene and its creating
 * operation, one statement), an edit turn and a revert, each then waiting for its organization's
 * turn (GenerationAdmission); the studio's edit history; and, inside a scene's deletion, the end of
 * its running operations (a SceneDeletionHooks hook: scenes knows nothing of operations).
 */
@Injectable()
export class SceneOperationsService implements OnModuleInit {
  constructor(
    private readonly scenes: SceneStore,
    private readonly operations: OperationsRepository,
    private readonly assets: ImageAssetsService,
    private readonly idempotency: IdempotentRequests,
    private readonly admission: AdmissionSignal,
    private readonly deletionHooks: SceneDeletionHooks,
    private readonly outcomes: OperationOutcomes,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly usage: UsageService,
    private readonly changes: SceneChanges,
    private readonly jobs: SceneJobScheduler,
  ) {}

  onModuleInit(): void {
    // In the deleting transaction, after the scene's lock: running operations fail, so no late
    // result is written; started work goes on until it ends, holding its slot, as after a cancel
    // (OperationOutcomes). Once it commits the organization runs fewer: admission may go on.
    this.deletionHooks.register('operations', async (tx, scene, at) => {
      for (const opId of await this.operations.processingOfScene(tx, scene.id)) {
        await this.outcomes.failed(tx, opId, OperationFailures.sceneDeleted(), at, { workMayGoOn: true });
      }
      afterCommit(tx, () => this.admission.wake());
    });
    // Once it committed, the rest (embed sessions revoked and announced, by the thousand) is a
    // worker's job, so the DELETE's answer does not wait for it.
    this.deletionHooks.scheduleFollowUpsWith((scene) => this.jobs.finishDeletion(scene.id));
  }

  /**
   * Accepts a scene in one transaction, idempotently: the idempotency record, the scene
   * (reserving its externalRef), the creating operation, the source asset's attachment and the
   * day's usage (refused past the organization's quota or its waiting cap). The operation then
   * waits in PostgreSQL for its organization's turn (GenerationAdmission), which the workers are
   * told of at once: an accepted operation is never lost, whatever happens to Redis.
   * Five round trips for a plain prompt where it took eight (BEGIN; the idempotency lock, lookup
   * and record; the scene and its operation; the usage and backlog counts; COMMIT): the answer is
   * known before the work (its ids are made first), so the record is written with the lock, and
   * a refusal rolls it back with the rest.
   */
  async create(organizationId: string, key: IdempotencyKey, dto: CreateSceneDto): Promise<Idempotent<OperationAcceptedResponse>> {
    const now = this.clock.now();
    const sceneId = this.ids.generate(SceneIdPrefix.Scene);
    const op = newOperation(this.ids.generate(OperationIdPrefix.Operation), organizationId, sceneId, 'scene.create', null, now);
    const scene: SceneEntity = {
      id: sceneId,
      organizationId,
      externalRef: dto.externalRef ?? null,
      prompt: dto.prompt,
      sourceAssetId: dto.sourceAssetId ?? null,
      status: 'generating',
      currentVersion: null,
      creatingOperationId: op.id,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    const result = await this.scenes.transaction((tx) =>
      this.idempotency.runKnownAnswer(tx, { organizationId, ...key, payload: { ...dto } }, accepted(op), async () => {
        if (dto.sourceAssetId) await this.assets.attachForScene(tx, organizationId, dto.sourceAssetId, now);
        try {
          await this.scenes.insertWith(tx, scene, [{ entity: OperationEntity, value: { ...op } }]);
        } catch (e) {
          if (isExternalRefConflict(e)) throw SceneErrors.externalRefConflict();
          throw e;
        }
        // Last: the organization's counter rows stay locked only until the commit that follows.
        await this.usage.startGeneration(tx, organizationId, 'creation', now);
      }),
    );
    if (!result.replayed) this.admission.wake();
    return result;
  }

  /** Starts an edit of the current version: a `scene.edit` operation that produces version n + 1. */
  requestEdit(organizationId: string, sceneId: string, instruction: string, admit?: EditAdmission): Promise<OperationAcceptedResponse> {
    return this.startEdit(
      organizationId,
      sceneId,
      (id, now) => newOperation(id, organizationId, sceneId, 'scene.edit', instruction, now),
      admit,
    );
  }

  /**
   * Starts a revert to `version` (1 to the current one): an edit turn whose result, version n + 1,
   * is that version again (SceneReverts), with the history kept. To partners it is an edit like any
   * other: an operation that succeeds with the next version. A version that does not exist (yet)
   * is not found, exactly as reading it would be.
   */
  requestRevert(organizationId: string, sceneId: string, version: number, admit?: EditAdmission): Promise<OperationAcceptedResponse> {
    return this.startEdit(
      organizationId,
      sceneId,
      (id, now, scene) => {
        if (!Number.isInteger(version) || version < 1 || version > scene.currentVersion!) throw DomainError.notFound();
        return { ...newOperation(id, organizationId, sceneId, 'scene.edit', null, now), revertTo: version };
      },
      admit,
    );
  }

  /**
   * Accepts an edit turn of a ready scene with no edit in flight; it then waits for its
   * organization's turn like a creation. `admit` runs once the turn is sure to start, still under
   * the scene's lock (what it counts, the studio's per-session edit budget, counts started turns
   * only), after the daily quota: a turn the quota refuses spends no session budget.
   */
  private async startEdit(
    organizationId: string,
    sceneId: string,
    build: (id: string, now: Date, scene: SceneEntity) => OperationEntity,
    admit?: EditAdmission,
  ): Promise<OperationAcceptedResponse> {
    const now = this.clock.now();
    const op = await this.scenes.transaction(async (tx) => {
      const scene = await this.scenes.lockActive(tx, organizationId, sceneId);
      if (!scene) throw DomainError.notFound();
      if (scene.status !== 'ready' || scene.currentVersion === null) throw SceneErrors.notReady();
      await this.assertNoEditInFlight(tx, sceneId);
      const created = build(this.ids.generate(OperationIdPrefix.Operation), now, scene);
      await this.usage.startGeneration(tx, organizationId, 'edit', now);
      await admit?.();
      await this.operations.insert(tx, created);
      await this.scenes.touch(tx, sceneId, now);
      return created;
    });
    this.admission.wake();
    this.announceEditTurn(sceneId);
    return accepted(op);
  }

  /** A new turn is in the scene's edit history: open studios of its edit modes show it. */
  private announceEditTurn(sceneId: string): void {
    this.changes.changed(sceneId);
  }

  /**
   * One edit turn of a scene at a time (docs/embed.md, "The studio's limits": `409 edit_in_progress`). Exact under
   * the scene's row lock, which every edit start takes first; per scene rather than per session,
   * since two sessions editing one scene at once would only make versions that undo each other.
   */
  private async assertNoEditInFlight(tx: Tx, sceneId: string): Promise<void> {
    if (await this.operations.editInFlight(tx, sceneId)) throw SceneErrors.editInProgress();
  }

  /** The scene's edit history, kept on the server so it survives a studio reload. */
  async editTurns(sceneId: string): Promise<EditTurn[]> {
    const ops = await this.operations.editsOfScene(sceneId);
    return ops.map((op) => ({
      operationId: op.id,
      // A revert has no instruction of its own; the history says what it did.
      instruction: op.revertTo !== null ? `Revert to version ${op.revertTo}` : (op.instruction ?? ''),
      revertTo: op.revertTo,
      status: op.status,
      version: op.version,
      error: op.errorCode ? { code: op.errorCode, message: op.errorMessage ?? '', retryable: op.errorRetryable ?? false } : null,
      createdAt: op.createdAt.toISOString(),
      completedAt: op.completedAt?.toISOString() ?? null,
    }));
  }
}

function accepted(op: OperationEntity): OperationAcceptedResponse {
  return { operationId: op.id, status: 'processing', createdAt: op.createdAt.toISOString() };
}

/** A processing operation as it is accepted (a creation, an edit, a revert), waiting for its turn. */
export function newOperation(
  id: string,
  organizationId: string,
  sceneId: string,
  kind: OperationEntity['kind'],
  instruction: string | null,
  now: Date,
): OperationEntity {
  return {
    id,
    organizationId,
    sceneId,
    kind,
    status: 'processing',
    instruction,
    revertTo: null,
    version: null,
    errorCode: null,
    errorMessage: null,
    errorRetryable: null,
    progress: 0,
    stage: 'queued',
    generator: null,
    providerJob: null,
    submittedAt: null,
    providerCancelledAt: null,
    enqueuedAt: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

/** One turn of the studio's multi-turn editing. */
export interface EditTurn {
  operationId: string;
  instruction: string;
  /** For a revert: the version it restored (its `instruction` then says so in words); otherwise null. */
  revertTo: number | null;
  status: 'processing' | 'succeeded' | 'failed';
  version: number | null;
  error: { code: string; message: string; retryable: boolean } | null;
  createdAt: string;
  completedAt: string | null;
}
