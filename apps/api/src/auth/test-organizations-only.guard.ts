import { OrganizationErrors } from '@app/organizations';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

/**
 * Test-mode routes (docs/api.md, "Testing your integration") answer test organizations only: a
 * live key gets `403 test_mode_only` before anything is looked up, so the refusal says nothing
 * about the id it names.
 */
@Injectable()
export class TestOrganizationsOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<Request>().principal;
    if (!principal) throw OrganizationErrors.unauthenticated();
    if (!principal.isTest) throw OrganizationErrors.testModeOnly();
    return true;
  }
}
