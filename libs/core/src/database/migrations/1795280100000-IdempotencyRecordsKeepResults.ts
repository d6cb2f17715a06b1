import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotency record keeps the result of the work it protects, not an HTTP response: the api
 * builds the status and headers (202, Location, Idempotent-Replayed) from the result each time.
 * The bodies already stored are those results, so records written before this migration still
 * replay within their window.
 */
export class IdempotencyRecordsKeepResults1795280100000 implements MigrationInterface {
  name = 'IdempotencyRecordsKeepResults1795280100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN response_status, DROP COLUMN response_headers`);
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN response_body TO result`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Every idempotent route answered 202 with a Location to its operation.
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN result TO response_body`);
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN response_status integer NOT NULL DEFAULT 202`);
    await q.query(
      `ALTER TABLE idempotency_keys ADD COLUMN response_headers jsonb NOT NULL
         DEFAULT '{}'::jsonb`,
    );
    await q.query(
      `UPDATE idempotency_keys SET response_headers = jsonb_build_object('location', '/v1/operations/' || (response_body->>'operationId'))`,
    );
    await q.query(`ALTER TABLE idempotency_keys ALTER COLUMN response_status DROP DEFAULT, ALTER COLUMN response_headers DROP DEFAULT`);
  }
}
