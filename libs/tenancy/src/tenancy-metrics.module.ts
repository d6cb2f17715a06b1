import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyRepository } from './tenancy.repository';
import { UsageDayEntity } from './usage-day.entity';
import { UsageMetrics } from './usage-metrics';

/** The per-organization gauges on /metrics: imported by the worker alone (UsageMetrics says why). */
@Module({
  imports: [TypeOrmModule.forFeature([UsageDayEntity])],
  providers: [TenancyRepository, UsageMetrics],
})
export class TenancyMetricsModule {}
