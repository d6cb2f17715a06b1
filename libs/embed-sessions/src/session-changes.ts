import { afterCommit, AppConfig, Broadcasts, Tx } from '@app/core';
import { SceneChanges } from '@app/operations';
import { Injectable, Logger } from '@nestjs/common';
import { EndedReason } from './embed-sessions.errors';

/**
 * What an open studio hears of its session, from any process (docs/architecture.md, "Server
 * push"): a session or every session of a scene ended (final: no need to read it again), a
 * session or a scene changed (read it again: its expiry, the scene's state or edit history), or a
 * gap, after which anything may have changed.
 */
export type SessionNews =
  | { kind: 'ended'; reason: EndedReason; sessionIds: string[]; at: Date | null }
  | { kind: 'scene-ended'; reason: EndedReason; sceneId: string; at: Date | null }
  | { kind: 'changed'; sessionIds: string[] }
  | { kind: 'scene-changed'; sceneId: string }
  | { kind: 'gap' };

/**
 * What travels on the channel; ids only, never a secret. An end carries when it committed (`at`,
 * epoch ms of the publishing process's clock), for the studio's measure of how late it told pages.
 */
type Message =
  { ended: EndedReason; sessions: string[]; at: number } | { ended: EndedReason; scene: string; at: number } | { changed: string[] };

/** Ids per message: a removed origin may end many sessions, and a message stays small. */
const IDS_PER_MESSAGE = 1000;

/**
 * The embed sessions' side of the server push: news of a session's end or change, broadcast once
 * the change has committed (core's Broadcasts, Redis pub/sub), merged with the scenes' own news
 * (SceneChanges) for the one listener that shows them, the studio's event streams.
 */
@Injectable()
export class SessionChanges {
  private readonly logger = new Logger(SessionChanges.name);
  private readonly channel: string;

  constructor(
    config: AppConfig,
    private readonly broadcasts: Broadcasts,
    private readonly scenes: SceneChanges,
  ) {
    this.channel = `${config.queuePrefix}:embed-sessions:changed`;
  }

  /** The sessions ended (revoked), once `tx` commits. */
  endedAfterCommit(tx: Tx, sessionIds: string[], reason: EndedReason): void {
    if (sessionIds.length === 0) return;
    afterCommit(tx, () => {
      const at = Date.now();
      for (let i = 0; i < sessionIds.length; i += IDS_PER_MESSAGE) {
        this.publish({ ended: reason, sessions: sessionIds.slice(i, i + IDS_PER_MESSAGE), at });
      }
    });
  }

  /** Every session of the scene ended (its deletion), once `tx` commits. */
  sceneEndedAfterCommit(tx: Tx, sceneId: string, reason: EndedReason): void {
    afterCommit(tx, () => this.publish({ ended: reason, scene: sceneId, at: Date.now() }));
  }

  /** The session changed (a new expiry), committed already. */
  changed(sessionId: string): void {
    this.publish({ changed: [sessionId] });
  }

  /** Every piece of news, from any process, until the returned function is called. */
  listen(onNews: (news: SessionNews) => void): () => void {
    const gap = () => onNews({ kind: 'gap' });
    const stopSessions = this.broadcasts.subscribe(this.channel, {
      message: (text) => {
        const news = this.parse(text);
        if (news) onNews(news);
      },
      resubscribed: gap,
    });
    const stopScenes = this.scenes.listen((sceneId) => onNews({ kind: 'scene-changed', sceneId }), gap);
    return () => {
      stopSessions();
      stopScenes();
    };
  }

  private publish(message: Message): void {
    this.broadcasts.publish(this.channel, JSON.stringify(message));
  }

  private parse(text: string): SessionNews | null {
    try {
      const m = JSON.parse(text) as Partial<{ ended: EndedReason; sessions: string[]; scene: string; changed: string[]; at: number }>;
      // A message without `at` (an older publisher during a rolling update) is still news.
      const at = typeof m.at === 'number' && Number.isFinite(m.at) ? new Date(m.at) : null;
      if (m.ended && Array.isArray(m.sessions)) return { kind: 'ended', reason: m.ended, sessionIds: m.sessions, at };
      if (m.ended && typeof m.scene === 'string') return { kind: 'scene-ended', reason: m.ended, sceneId: m.scene, at };
      if (Array.isArray(m.changed)) return { kind: 'changed', sessionIds: m.changed };
    } catch {
      // Reported below.
    }
    // Another version's message during a rolling update, say: a gap is the safe reading.
    this.logger.warn(`an embed-session broadcast was not understood; re-checking every open stream`);
    return { kind: 'gap' };
  }
}
