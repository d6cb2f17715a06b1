import { AppConfig, CoreModule } from '@app/core';
import { EmbedSessionsModule } from '@app/embed-sessions';
import { OrganizationsModule } from '@app/organizations';
import { TenancyModule } from '@app/tenancy';
import { WebhooksModule } from '@app/webhooks';
import { DynamicModule, Module } from '@nestjs/common';

@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      // Logs go to stderr so that stdout carries only the command's output.
      imports: [
        CoreModule.forRoot({ app: 'cli', config, logging: { destination: 2, quietLevel: 'warn' } }),
        OrganizationsModule,
        // Registers what removing an origin ends (its live embed sessions); without it `origin
        // remove` would leave them running.
        EmbedSessionsModule,
        TenancyModule,
        WebhooksModule,
      ],
    };
  }
}
