import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GenerationBacklogs } from './generation-backlogs';
import { LimitsService } from './limits.service';
import { OrganizationBacklogEntity } from './organization-backlog.entity';
import { OrganizationLimitsEntity } from './organization-limits.entity';
import { TenancyRepository } from './tenancy.repository';
import { UsageDayEntity } from './usage-day.entity';
import { UsageService } from './usage.service';

/** Limits and usage, for every process that starts, ends or reports generations. */
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationLimitsEntity, UsageDayEntity, OrganizationBacklogEntity])],
  providers: [TenancyRepository, LimitsService, UsageService, GenerationBacklogs],
  exports: [LimitsService, UsageService, GenerationBacklogs],
})
export class TenancyModule {}
