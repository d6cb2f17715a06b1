import { hashEmbedSecret } from '@app/embed-sessions/embed-secret';
import { DEFAULT_THEME, EmbedSessionEntity } from '@app/embed-sessions/embed-session.entity';
import { EmbedSessionsRepository } from '@app/embed-sessions/embed-sessions.repository';
import { randomBytes, randomUUID } from 'node:crypto';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

const HOUR = 3_600_000;
const ORIGIN = 'https://partner.example';
/** The origin whose approval `revokeForOrigin` withdraws. */
const WITHDRAWN_ORIGIN = 'https://withdrawn.partner.example';

/**
 * Sessions these examples make on the fixtures' scene, one per way a session ends: `revoked` by
 * its organization, `expiredNow` by test mode's clock, `expired` by time (the sweep reports it),
 * `ofOrigin` by its origin's withdrawal, `extended` then by its scene's deletion.
 */
const ids = {
  revoked: `es_q_${randomUUID()}`,
  expiredNow: `es_q_${randomUUID()}`,
  expired: `es_q_${randomUUID()}`,
  ofOrigin: `es_q_${randomUUID()}`,
  extended: `es_q_${randomUUID()}`,
};
/** The hash of `revoked`'s secret (the studio looks a session up by it). */
const secretHash = hashEmbedSecret(randomBytes(32).toString('base64url'));

/** A session as embed-sessions.service.ts `create` builds one (the same properties set). */
function session(f: Fixtures, id: string, opts: { origin?: string; createdAt?: Date; secretHash?: string } = {}): EmbedSessionEntity {
  const createdAt = opts.createdAt ?? f.now;
  return {
    id,
    organizationId: f.organizationId,
    sceneId: f.sceneId,
    origin: opts.origin ?? ORIGIN,
    mode: 'edit_and_perform',
    theme: { ...DEFAULT_THEME },
    secretHash: opts.secretHash ?? hashEmbedSecret(randomBytes(32).toString('base64url')),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + HOUR),
    revokedAt: null,
    revokedReason: null,
  };
}

export const embedSessionsExamples: RepositoryExamples<unknown>[] = [
  examplesOf<EmbedSessionsRepository>({
    type: EmbedSessionsRepository,
    make: (db) => new EmbedSessionsRepository(db),
    calls: {
      insert: async (r, tx, f) => {
        await r.insert(session(f, ids.revoked, { secretHash }), tx);
        await r.insert(session(f, ids.expiredNow), tx);
        // Created two hours ago: it expired an hour ago, and nobody reported its end yet.
        await r.insert(session(f, ids.expired, { createdAt: new Date(f.now.getTime() - 2 * HOUR) }), tx);
        await r.insert(session(f, ids.ofOrigin, { origin: WITHDRAWN_ORIGIN }), tx);
        await r.insert(session(f, ids.extended), tx);
      },
      findById: (r) => r.findById(ids.revoked),
      findBySecretHash: (r) => r.findBySecretHash(secretHash),
      watch: (r) => r.watch(Object.values(ids)),
      watchScenes: (r, _tx, f) => r.watchScenes([f.sceneId]),
      extend: (r, _tx, f) => r.extend(f.organizationId, ids.extended, new Date(f.now.getTime() + 2 * HOUR), f.now),
      revoke: (r, tx, f) => r.revoke(tx, f.organizationId, ids.revoked, f.now),
      expireNow: (r, tx, f) => r.expireNow(tx, f.organizationId, ids.expiredNow, f.now),
      claimExpiredUnreported: (r, tx, f) => r.claimExpiredUnreported(tx, f.now, 500),
      revokeForOrigin: (r, tx, f) => r.revokeForOrigin(tx, f.organizationId, WITHDRAWN_ORIGIN, f.now),
      anyActiveOfScene: (r, tx, f) => r.anyActiveOfScene(tx, f.sceneId, f.now),
      revokeForScene: (r, tx, f) => r.revokeForScene(tx, f.sceneId, f.now),
      // Every session above has ended by now: revoked, or expired with its end reported.
      deleteEndedBefore: (r, _tx, f) => r.deleteEndedBefore(new Date(f.now.getTime() + 60_000), 1000),
      transaction: (r) => r.transaction(async () => undefined),
    },
  }),
];
