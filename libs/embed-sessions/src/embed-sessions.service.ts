import { AppConfig, Clock, DomainError, IdGenerator, IdPrefix, RandomSource } from '@app/core';
import { OrganizationsService, Principal } from '@app/organizations';
import { SceneDeletionHooks, ScenesService } from '@app/scenes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CreateEmbedSessionDto } from './dto/create-embed-session.dto';
import { EmbedSessionResponse } from './dto/embed-session.response';
import { DEFAULT_THEME, EmbedSessionEntity, EmbedTheme } from './embed-session.entity';
import { hashEmbedSecret, isWellFormedEmbedSecret, newEmbedSecret } from './embed-secret';
import { EmbedSessionErrors, EndedReason } from './embed-sessions.errors';
import { EmbedSessionsRepository, SessionWithScene, WatchedState } from './embed-sessions.repository';

const DEFAULT_LIFETIME_SECONDS = 3600;

/** Why a session no longer works, decided by time and state at each request; null while active. */
export function endedReason(s: Pick<EmbedSessionEntity, 'revokedAt' | 'expiresAt'>, sceneDeleted: boolean, now: Date): EndedReason | null {
  if (s.revokedAt || sceneDeleted) return 'revoked';
  if (s.expiresAt <= now) return 'expired';
  return null;
}

@Injectable()
export class EmbedSessionsService implements OnModuleInit {
  constructor(
    private readonly sessions: EmbedSessionsRepository,
    private readonly scenes: ScenesService,
    private readonly organizations: OrganizationsService,
    private readonly deletionHooks: SceneDeletionHooks,
    private readonly config: AppConfig,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly clock: Clock,
  ) {}

  /** Deleting a scene revokes its active sessions in the same transaction. */
  onModuleInit(): void {
    this.deletionHooks.register('embed-sessions', (tx, scene, at) => this.sessions.revokeForScene(tx, scene.id, at).then(() => undefined));
  }

  async create(principal: Principal, dto: CreateEmbedSessionDto): Promise<EmbedSessionResponse> {
    const scene = await this.scenes.get(principal.organizationId, dto.sceneId);
    if (!scene) throw DomainError.notFound();
    if (!(await this.organizations.isOriginAllowed(principal.organizationId, dto.origin, principal.isTest))) {
      throw EmbedSessionErrors.originNotAllowed();
    }
    const now = this.clock.now();
    const secret = newEmbedSecret(this.random);
    const theme: EmbedTheme = {
      partnerName: dto.theme?.partnerName ?? DEFAULT_THEME.partnerName,
      accentColor: (dto.theme?.accentColor ?? DEFAULT_THEME.accentColor).toLowerCase(),
      colorScheme: dto.theme?.colorScheme ?? DEFAULT_THEME.colorScheme,
      helpText: dto.theme?.helpText ?? DEFAULT_THEME.helpText,
    };
    const session: EmbedSessionEntity = {
      id: this.ids.generate(IdPrefix.EmbedSession),
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
    await this.sessions.insert(session);
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
    await this.sessions.revoke(organizationId, id, this.clock.now());
  }

  /** The session a studio page may be shown for (by id, no secret), or null when it is not active. */
  async activeById(id: string): Promise<SessionWithScene | null> {
    const found = await this.sessions.findById(id);
    if (!found || endedReason(found.session, found.scene.deleted, this.clock.now())) return null;
    return found;
  }

  /** The studio API's check on every call: the secret names an active session. */
  async authenticate(secret: string | null): Promise<SessionWithScene> {
    if (!secret || !isWellFormedEmbedSecret(secret)) throw EmbedSessionErrors.unauthenticated();
    const found = await this.sessions.findBySecretHash(hashEmbedSecret(secret));
    if (!found) throw EmbedSessionErrors.unauthenticated();
    const reason = endedReason(found.session, found.scene.deleted, this.clock.now());
    if (reason) throw EmbedSessionErrors.ended(reason);
    return found;
  }

  watch(ids: string[]): Promise<WatchedState[]> {
    return this.sessions.watch(ids);
  }

  now(): Date {
    return this.clock.now();
  }
}
