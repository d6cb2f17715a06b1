import type { EditTurn, EndedReason, GenerationStage, SafeError, SceneStatus } from '../api/studio-api.types';
import type { ServerSentEvent } from '../api/sse.parser';

export type StudioServerEvent =
  | {
      type: 'scene.status';
      status: SceneStatus;
      version: number | null;
      error: SafeError | null;
      progress: number | null;
      stage: GenerationStage | null;
    }
  | { type: 'edit.updated'; turns: (Partial<EditTurn> & { operationId: string })[] }
  | { type: 'session.updated'; expiresAt: string }
  | { type: 'session.ended'; reason: EndedReason };

/**
 * Turns a raw server-sent event into a typed studio event, or null for anything unknown or
 * malformed: a newer server may add events, and a bad payload must not stop the stream.
 */
export function parseServerEvent(event: ServerSentEvent): StudioServerEvent | null {
  let data: Record<string, unknown> = {};
  if (event.data.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(event.data);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
    } catch {
      if (event.type !== 'session.ended') return null;
    }
  }
  switch (event.type) {
    case 'scene.status': {
      // Some servers nest the scene; accept both `{status, version}` and `{scene: {…}}`.
      const scene = isObject(data.scene) ? data.scene : data;
      const status = scene.status;
      if (status !== 'generating' && status !== 'ready' && status !== 'failed') return null;
      return {
        type: 'scene.status',
        status,
        version: typeof scene.version === 'number' ? scene.version : null,
        error: isSafeError(scene.error) ? scene.error : null,
        progress: typeof scene.progress === 'number' && scene.progress >= 0 && scene.progress <= 1 ? scene.progress : null,
        stage: isStage(scene.stage) ? scene.stage : null,
      };
    }
    case 'edit.updated': {
      // The studio server sends the whole history (`{turns: [...]}`); a single turn, bare or as
      // `{turn}`, is accepted too.
      const candidates: unknown[] = Array.isArray(data.turns) ? data.turns : [isObject(data.turn) ? data.turn : data];
      const turns = candidates.filter(
        (t): t is Partial<EditTurn> & { operationId: string } => isObject(t) && typeof t.operationId === 'string',
      );
      return turns.length > 0 ? { type: 'edit.updated', turns } : null;
    }
    case 'session.updated':
      return typeof data.expiresAt === 'string' && Number.isFinite(Date.parse(data.expiresAt))
        ? { type: 'session.updated', expiresAt: data.expiresAt }
        : null;
    case 'session.ended':
      return { type: 'session.ended', reason: data.reason === 'expired' ? 'expired' : 'revoked' };
    default:
      return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStage(value: unknown): value is GenerationStage {
  return value === 'queued' || value === 'generating' || value === 'downloading' || value === 'storing';
}

function isSafeError(value: unknown): value is SafeError {
  return isObject(value) && typeof value.message === 'string';
}
