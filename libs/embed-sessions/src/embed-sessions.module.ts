import { OperationsModule } from '@app/operations';
import { OrganizationsModule } from '@app/organizations';
import { ScenesModule } from '@app/scenes';
import { WebhooksModule } from '@app/webhooks';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmbedSessionEntity } from './embed-session.entity';
import { EmbedSessionRetention } from './embed-session-retention';
import { EmbedSessionsRepository } from './embed-sessions.repository';
import { EmbedSessionsService } from './embed-sessions.service';
import { SessionChanges } from './session-changes';

@Module({
  imports: [TypeOrmModule.forFeature([EmbedSessionEntity]), ScenesModule, OperationsModule, OrganizationsModule, WebhooksModule],
  providers: [EmbedSessionsRepository, EmbedSessionsService, EmbedSessionRetention, SessionChanges],
  exports: [EmbedSessionsService],
})
export class EmbedSessionsModule {}
