import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotentRequests } from './idempotency';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdempotencyRepository } from './idempotency.repository';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyRepository, IdempotentRequests],
  exports: [IdempotentRequests],
})
export class IdempotencyModule {}
