import { AppConfig, Clock, CredentialLookups, DomainError, IdGenerator, LookupCaller, OnJob, RandomSource, Tx } from '@app/core';
import { OrganizationsService, OriginRemovalHooks, Principal, RemovedOrigin } from '@app/organizations';
import { SceneDeletionHooks, ScenesService } from '@app/scenes';
import { EmbedSessionEndReason, WebhookOutbox } from '@app/webhooks';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CreateEmbedSessionDto, ExtendEmbedSessionDto } from './dto/create-embed-session.dto';
import { EmbedSessionResponse } from './dto/embed-session.response';
import { DEFAULT_THEME, EmbedSessionEntity, EmbedTheme } from './embed-session.entity';
import { hashEmbedSecret, isWellFormedEmbedSecret, newEmbedSecret } from './embed-secret';
import { EmbedSessionErrors, EndedReason } from './embed-sessions.errors';
import { EmbedSessionsRepository, EndedSession, SessionWithScene, WatchedScene, WatchedState } from './embed-sessions.repository';
import { EmbedSessionIdPrefix } from './embed-sessions.ids';
import { EmbedSessionJob } from './embed-sessions.jobs';
import { SessionChanges, SessionNews } from './session-changes';

/** What the studio reads of a session: the session and its scene (its guard), a watched state (its events). */
export type { SessionWithScene, WatchedScene, WatchedState } from './embed-sessions.repository';

const DEFAULT_LIFETIME_SECONDS = 3600;
const EXPIRY_BATCH = 500;

/** Why a session no longer works, decided by time and state at each request; null while active. */
export function endedReason(s: Pick<EmbedSessionEntity, 'revokedAt' | 'expiresAt'>, sceneDeleted: boolean, now: Date): EndedReason | null {
  if (s.revokedAt || sceneDeleted) return 'revoked';
  if (s.expiresAt <= now) return 'expired';
  return null;
}

@Injectable()
export class EmbedSessionsService implements OnModuleInit {
  private readonly logger = new Logger(EmbedSessionsService.name);

  constructor(
    private readonly sessions: EmbedSessionsRepository,
    private readonly scenes: ScenesService,
    private readonly organizations: OrganizationsService,
    private readonly deletionHooks: SceneDeletionHooks,
    private readonly originRemovalHooks: OriginRemovalHooks,
    private readonly outbox: WebhookOutbox,
    private readonly lookups: CredentialLookups,
    private readonly config: AppConfig,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly clock: Clock,
    private readonly changes: SessionChanges,
  ) {}

  /**
   * Deleting a scene ends its sessions: from the deletion's commit the studio refuses them (it
   * checks the scene on every call), and open studios are told then, one message for the scene.
   * Marking the session rows revoked and announcing `embed_session.ended` follows in a
   * transaction of its own (a follow-up: thousands of rows for a popular scene would hold the
   * deletion, and the studios' news, for as long), run again by the purge should it not have run.
   */
  onModuleInit(): void {
    this.deletionHooks.register('embed-sessions', (tx, scene) => {
      this.changes.sceneEndedAfterCommit(tx, scene.id, 'revoked');
      return Promise.resolve();
    });
    this.deletionHooks.registerFollowUp(
      'embed-sessions',
      async (tx, scene, at) => {
        await this.announceEnds(tx, await this.sessions.revokeForScene(tx, scene.id, at), 'scene_deleted', at);
      },
      (tx, scene, at) => this.sessions.anyActiveOfScene(tx, scene.id, at),
    );
    this.originRemovalHooks.register('embed-sessions', (tx, removed, at) => this.endForOrigin(tx, removed, at));
  }

  /**
   * An approved origin was withdrawn (`cli origin remove`): the organization's live sessions bound
   * to it end now, in the removing transaction, each announced as revoked. Open studios hear of it
   * once it commits, as of any revocation.
   */
  private async endForOrigin(tx: Tx, removed: RemovedOrigin, at: Date): Promise<void> {
    const ended = await this.sessions.revokeForOrigin(tx, removed.organizationId, removed.origin, at);
    await this.announceEnds(tx, ended, 'revoked', at);
    this.changes.endedAfterCommit(
      tx,
      ended.map((s) => s.id),
      'revoked',
    );
  }

  async create(principal: Principal, dto: CreateEmbedSessionDto): Promise<EmbedSessionResponse> {
    const scene = await this.scenes.get(principal.organizationId, dto.sceneId);
    if (!scene) throw DomainError.notFound();
    const now = this.clock.now();
    const secret = newEmbedSecret(this.random);
    const theme: EmbedTheme = {
      partnerName: dto.theme?.partnerName ?? DEFAULT_THEME.partnerName,
      accentColor: (dto.theme?.accentColor ?? DEFAULT_THEME.accentColor).toLowerCase(),
      colorScheme: dto.theme?.colorScheme ?? DEFAULT_THEME.colorScheme,
      helpText: dto.theme?.helpText ?? DEFAULT_THEME.helpText,
    };
    const session: EmbedSessionEntity = {
      id: this.ids.generate(EmbedSessionIdPrefix.EmbedSession),
      organizationId: principal.organizationId,
      sceneId: dto.sceneId,
      origin: dto.origin,
      mode: dto.mode,
      theme,
      secretHash: hashEmbedSecret(secret),
      createdAt: now,
      expiresAt: new Date(now.getTime() + (dto.expiresInSeconds ?? DEFAULT_LIFETIME_SECONDS) * 1000),
      revokedAt: null,
      revokedReason: null,
    };
    // The approval is checked and held in the inserting transaction: an origin removed meanwhile
    // either waits for this session and ends it, or was gone before the check.
    await this.sessions.transaction(async (tx) => {
      if (!(await this.organizations.isOriginAllowed(principal.organizationId, dto.origin, principal.isTest, tx))) {
        throw EmbedSessionErrors.originNotAllowed();
      }
      await this.sessions.insert(session, tx);
    });
    return {
      embedSessionId: session.id,
      // The secret rides in the fragment: browsers never send it to a server or in a Referer.
      url: `${this.config.publicEmbedOrigin}/embed/${session.id}#${secret}`,
      sceneId: session.sceneId,
      mode: session.mode,
      origin: session.origin,
      expiresAt: session.expiresAt.toISOString(),
      createdAt: session.createdAt.toISOString(),
      theme,
    };
  }

  /** Idempotent and silent: unknown, foreign, expired and revoked ids are all a no-op. */
  async revoke(organizationId: string, id: string): Promise<void> {
    const now = this.clock.now();
    await this.sessions.transaction(async (tx) => {
      const ended = await this.sessions.revoke(tx, organizationId, id, now);
      if (!ended) return;
      await this.announceEnds(tx, [ended], 'revoked', now);
      this.changes.endedAfterCommit(tx, [ended.id], 'revoked');
    });
  }

  /**
   * A new expiry, counted from now, for an active session: the URL stays the same and open
   * studios learn it by server push. null (a 404) for unknown, foreign, expired and revoked ones.
   */
  async extend(organizationId: string, id: string, dto: ExtendEmbedSessionDto): Promise<{ embedSessionId: string; expiresAt: string }> {
    if (!(await this.originStillAllowed(organizationId, id))) throw DomainError.notFound();
    const now = this.clock.now();
    const expiresAt = await this.sessions.extend(organizationId, id, new Date(now.getTime() + dto.expiresInSeconds * 1000), now);
    if (!expiresAt) throw DomainError.notFound();
    this.changes.changed(id);
    return { embedSessionId: id, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Test mode's clock: an active session expires now, exactly as if its time had run out: its URL
   * stops working, open studios switch to their ended page (`session.ended`, reason `expired`)
   * and `embed_session.ended` (`expired`) is announced once, in this transaction rather than by
   * the next sweep. Only the HTTP app knows who may call it (test organizations). 404 for
   * unknown, foreign and ended sessions, as `extend` answers.
   */
  async expireNow(organizationId: string, id: string): Promise<{ embedSessionId: string; expiresAt: string }> {
    const now = this.clock.now();
    const ended = await this.sessions.transaction(async (tx) => {
      const expired = await this.sessions.expireNow(tx, organizationId, id, now);
      if (!expired) return null;
      await this.announceEnds(tx, [expired], 'expired', now);
      this.changes.endedAfterCommit(tx, [expired.id], 'expired');
      return expired;
    });
    if (!ended) throw DomainError.notFound();
    return { embedSessionId: ended.id, expiresAt: now.toISOString() };
  }

  /**
   * Whether the session's origin is still one the organization may embed on. Withdrawing an origin
   * revokes its sessions at once; this keeps an extension from reviving one that slipped past
   * (created while the origin was being removed). False for unknown and foreign sessions.
   */
  private async originStillAllowed(organizationId: string, id: string): Promise<boolean> {
    const found = await this.sessions.findById(id);
    if (!found || found.session.organizationId !== organizationId) return false;
    return this.organizations.allowsOrigin(organizationId, found.session.origin);
  }

  /**
   * Expiry happens by the clock alone, with nothing to announce it: this job, every 30 s on the
   * worker, finds sessions that expired unreported and announces their end (`embed_session.ended`,
   * reason `expired`) once.
   */
  @OnJob(EmbedSessionJob.EndExpired)
  async endExpired(): Promise<{ ended: number }> {
    let ended = 0;
    for (;;) {
      const now = this.clock.now();
      const batch = await this.sessions.transaction(async (tx) => {
        const expired = await this.sessions.claimExpiredUnreported(tx, now, EXPIRY_BATCH);
        await this.announceEnds(tx, expired, 'expired', now);
        return expired.length;
      });
      ended += batch;
      if (batch < EXPIRY_BATCH) break;
    }
    if (ended > 0) this.logger.log(`announced the expiry of ${ended} embed session(s)`);
    return { ended };
  }

  /** `embed_session.ended` for each, one statement per organization (a scene's deletion may end thousands). */
  private async announceEnds(tx: Tx, ended: EndedSession[], reason: EmbedSessionEndReason, at: Date): Promise<void> {
    const byOrganization = new Map<string, EndedSession[]>();
    for (const s of ended) {
      const list = byOrganization.get(s.organizationId);
      if (list) list.push(s);
      else byOrganization.set(s.organizationId, [s]);
    }
    for (const [organizationId, sessions] of byOrganization) {
      const data = sessions.map((s) => ({ embedSessionId: s.id, sceneId: s.sceneId, reason }));
      await this.outbox.emitEach(tx, organizationId, 'embed_session.ended', data, at);
    }
  }

  /**
   * The session a studio page may be shown for (by id, no secret), or null when it is not active.
   * An id not found costs `caller` one lookup of its budget (`RateLimitExceeded` when spent).
   */
  async activeById(id: string, caller: LookupCaller): Promise<SessionWithScene | null> {
    const found = await this.lookups.lookup(caller, id, () => this.sessions.findById(id));
    if (!found || endedReason(found.session, found.scene.deleted, this.clock.now())) return null;
    return found;
  }

  /**
   * The studio API's check on every call: the secret names an active session. A secret not found
   * costs `caller` one lookup of its budget (`RateLimitExceeded` when spent).
   */
  async authenticate(secret: string | null, caller: LookupCaller): Promise<SessionWithScene> {
    if (!secret || !isWellFormedEmbedSecret(secret)) throw EmbedSessionErrors.unauthenticated();
    const hash = hashEmbedSecret(secret);
    const found = await this.lookups.lookup(caller, hash, () => this.sessions.findBySecretHash(hash));
    if (!found) throw EmbedSessionErrors.unauthenticated();
    const reason = endedReason(found.session, found.scene.deleted, this.clock.now());
    if (reason) throw EmbedSessionErrors.ended(reason);
    return found;
  }

  /** The watched state of these sessions (those that still exist), in one query. */
  watch(ids: string[]): Promise<WatchedState[]> {
    return this.sessions.watch(ids);
  }

  /** The state and edit-history mark of these scenes (those that still exist), in one query. */
  watchScenes(sceneIds: string[]): Promise<WatchedScene[]> {
    return this.sessions.watchScenes(sceneIds);
  }

  /** News of sessions and their scenes from every process (SessionChanges), until the returned function is called. */
  listen(onNews: (news: SessionNews) => void): () => void {
    return this.changes.listen(onNews);
  }

  now(): Date {
    return this.clock.now();
  }
}
