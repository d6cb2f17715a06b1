import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthServiceModule } from './health-service.module';

/** The health checks' HTTP routes, for api and studio (the worker takes HealthServiceModule alone). */
@Module({ imports: [HealthServiceModule], controllers: [HealthController] })
export class HealthModule {}
