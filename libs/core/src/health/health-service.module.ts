import { Module } from '@nestjs/common';
import { HealthService } from './health.service';

/** Health checks as a service, for the worker (its ops server) and under HealthModule's routes. */
@Module({ providers: [HealthService], exports: [HealthService] })
export class HealthServiceModule {}
