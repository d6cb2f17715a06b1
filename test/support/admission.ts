import { GenerationAdmission } from '@app/operations';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pollUntil } from './poll';

/**
 * Runs admission rounds until the operation is admitted, as production queues a job only once it
 * is. The background loop admits too, and a round of ours is skipped while its round holds the
 * lock: so a test that runs a job by hand waits on the outcome, not on one round.
 */
export async function untilAdmitted(app: INestApplicationContext, operationId: string, timeoutMs = 10_000): Promise<void> {
  await pollUntil(
    async () => {
      await app.get(GenerationAdmission).round();
      const [row] = await app.get(DataSource).query(`SELECT admitted_at FROM operations WHERE id = $1`, [operationId]);
      return (row?.admitted_at ?? null) as Date | null;
    },
    (admittedAt) => admittedAt !== null,
    { timeoutMs, what: `${operationId} to be admitted` },
  );
}
