import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/** Health checks as a service (for the worker) plus the HTTP routes (for api and studio). */
@Module({ providers: [HealthService], exports: [HealthService] })
export class HealthServiceModule {}

@Module({ imports: [HealthServiceModule], controllers: [HealthController] })
export class HealthModule {}
