import { Controller, Get, Header } from '@nestjs/common';
import { DomainError, ErrorCode } from '../errors';
import { HealthService } from './health.service';

export function notReadyError(checks: Record<string, string>): DomainError {
  const down = Object.entries(checks)
    .filter(([, v]) => v === 'down')
    .map(([k]) => k);
  return new DomainError(ErrorCode.Unavailable, `Not ready: ${down.join(' and ')} unreachable.`, {
    retryAfterSeconds: 5,
    extensions: { checks },
  });
}

/**
 * The probes, for load balancers and orchestrators, not partners: the api and the studio leave
 * them out of their OpenAPI documents (their openapi files apply `ApiExcludeController`). Core
 * names no OpenAPI decorator, which would load @nestjs/swagger into every process that imports
 * core, each CLI call included.
 */
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('healthz')
  @Header('cache-control', 'no-store')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Header('cache-control', 'no-store')
  async readyz(): Promise<{ status: 'ready'; checks: Record<string, string> }> {
    const report = await this.health.readiness();
    if (!report.ready) throw notReadyError(report.checks);
    return { status: 'ready', checks: report.checks };
  }
}
