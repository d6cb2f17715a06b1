import { BLOB_CHUNK_BYTES, Clock, fingerprint, IDEMPOTENCY_WINDOW_MS, IdempotencyRepository, PostgresBlobStore } from '@app/core';
import { BlobLedger } from '@app/core/blob-store/blob-ledger';
import { IdempotencyKeyEntity } from '@app/core/idempotency/idempotency-key.entity';
import { randomUUID } from 'node:crypto';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/**
 * What these examples make: idempotency keys of the fixtures' organization (`claimed` by `claim`,
 * `expired` past its window for `delete`, `purged` past it for `deleteExpired`), a stored blob of
 * two and a half chunks (an image asset's, as ImageAssetsService stores one), and two ledger keys
 * (one settled, one left for the sweep).
 */
const keys = { claimed: randomUUID(), expired: randomUUID(), purged: randomUUID() };
const blobKey = `image-assets/img_q_${randomUUID()}`;
const ledger = { settled: `scenes/scn_q_${randomUUID()}/v1/mesh.glb`, stale: `scenes/scn_q_${randomUUID()}/v1/splat.spz` };
const BLOB_BYTES = Math.floor(BLOB_CHUNK_BYTES * 2.5);

/** A record as IdempotentRequests.run and runKnownAnswer write one (every property set). */
function record(f: Fixtures, key: string, createdAt: Date): IdempotencyKeyEntity {
  const payload = { prompt: 'A harbour at dawn' };
  return {
    organizationId: f.organizationId,
    key,
    fingerprint: fingerprint('POST /v1/scenes', payload),
    result: { operationId: f.operationId, sceneId: f.sceneId },
    createdAt,
    expiresAt: new Date(createdAt.getTime() + IDEMPOTENCY_WINDOW_MS),
  };
}

const daysAgo = (f: Fixtures, days: number) => new Date(f.now.getTime() - days * 86_400_000);

export const coreExamples: RepositoryExamples<unknown>[] = [
  examplesOf<IdempotencyRepository>({
    type: IdempotencyRepository,
    make: (db) => new IdempotencyRepository(db),
    calls: {
      tryLock: (r, tx, f) => r.tryLock(tx, f.organizationId, keys.claimed),
      claim: (r, tx, f) => r.claim(tx, record(f, keys.claimed, f.now)),
      find: (r, tx, f) => r.find(tx, f.organizationId, keys.claimed),
      insert: async (r, tx, f) => {
        await r.insert(tx, record(f, keys.expired, daysAgo(f, 2)));
        await r.insert(tx, record(f, keys.purged, daysAgo(f, 2)));
      },
      // As run does when the key it found is past its window.
      delete: (r, tx, f) => r.delete(tx, f.organizationId, keys.expired),
      deleteExpired: (r, _tx, f) => r.deleteExpired(f.now, 1000),
    },
  }),
  examplesOf<PostgresBlobStore>({
    type: PostgresBlobStore,
    make: (db) => new PostgresBlobStore(db),
    calls: {
      // In the caller's transaction, as every caller stores one.
      put: (r, tx) => r.put(blobKey, Buffer.alloc(BLOB_BYTES, 0x5a), 'image/png', tx),
      get: async (r) => {
        if (!(await r.get(blobKey))) throw new Error(`blob ${blobKey} not found`);
      },
      // Read to its end: three chunks, one statement each.
      open: async (r) => {
        const blob = await r.open(blobKey);
        if (!blob) throw new Error(`blob ${blobKey} not found`);
        let read = 0;
        for await (const chunk of blob.stream) read += (chunk as Buffer).length;
        if (read !== BLOB_BYTES) throw new Error(`read ${read} bytes of ${BLOB_BYTES}`);
      },
      delete: (r, tx) => r.delete([blobKey], tx),
    },
  }),
  examplesOf<BlobLedger>({
    type: BlobLedger,
    make: (db) => new BlobLedger(db, new Clock()),
    calls: {
      open: async (r) => {
        await r.open(ledger.settled);
        await r.open(ledger.stale);
      },
      // In the transaction that commits the row naming the object (LedgeredS3BlobStore.put).
      settle: (r, tx) => r.settle(ledger.settled, tx),
      // Older than an hour from now: takes the unsettled key.
      takeStale: (r, tx, f) => r.takeStale(tx, new Date(f.now.getTime() + 3_600_000), 100),
    },
  }),
];
