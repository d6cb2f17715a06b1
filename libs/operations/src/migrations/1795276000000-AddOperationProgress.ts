import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddOperationProgress1795276000000 implements MigrationInterface {
  name = 'AddOperationProgress1795276000000';

  async up(q: QueryRunner): Promise<void> {
    // 0 to 1 while processing, set by the worker at each stage; shown by the studio.
    await q.query(`ALTER TABLE operations ADD COLUMN progress real CHECK (progress BETWEEN 0 AND 1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE operations DROP COLUMN progress`);
  }
}
