import { Global, Module } from '@nestjs/common';
import { IdempotencyStore } from './idempotency';

@Global()
@Module({ providers: [IdempotencyStore], exports: [IdempotencyStore] })
export class IdempotencyModule {}
