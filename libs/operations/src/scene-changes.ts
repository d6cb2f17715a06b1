import { afterCommit, AppConfig, BroadcastHandler, Broadcasts, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';

/**
 * News that a scene's state as `scene_states` shows it changed — its status, version, creation
 * progress, stage or error, or its edit history — broadcast to every process (Redis pub/sub) once
 * the change is visible, for those who show it live (the studio's event streams). The message is
 * the scene's id only: a listener re-reads the state, so messages that arrive late or out of order
 * show nothing stale. At most once (core's Broadcasts): listeners keep a slow sweep for a message
 * lost to a crash between a commit and its publish, or to Redis being away.
 *
 * Published by: an operation's end (OperationOutcomes: success, failure, cancel, the reconciler's
 * give-up), a new edit turn (SceneOperationsService), the creation's progress (the generation job). A
 * scene's deletion is announced by those who end something with it (embed sessions).
 */
@Injectable()
export class SceneChanges {
  private readonly channel: string;

  constructor(
    config: AppConfig,
    private readonly broadcasts: Broadcasts,
  ) {
    this.channel = `${config.queuePrefix}:scenes:changed`;
  }

  /** After `tx` commits (or at once when it is not a transaction). */
  changedAfterCommit(tx: Tx, sceneId: string): void {
    afterCommit(tx, () => this.changed(sceneId));
  }

  /** For a change already committed. */
  changed(sceneId: string): void {
    this.broadcasts.publish(this.channel, sceneId);
  }

  /** `onChange(sceneId)` for every change from any process; `onGap()` whenever some may have been missed. */
  listen(onChange: (sceneId: string) => void, onGap: () => void): () => void {
    const handler: BroadcastHandler = { message: onChange, resubscribed: onGap };
    return this.broadcasts.subscribe(this.channel, handler);
  }
}
