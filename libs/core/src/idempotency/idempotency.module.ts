import { Global, Module } from '@nestjs/common';
import { IdempotentRequests } from './idempotency';
import { IdempotencyRepository } from './idempotency.repository';

@Global()
@Module({ providers: [IdempotencyRepository, IdempotentRequests], exports: [IdempotentRequests] })
export class IdempotencyModule {}
