import { OrganizationErrors, Principal } from '@app/organizations';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The authenticated caller, set by the partner auth middleware. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  // Unreachable unless a route was wrongly made public; fail closed.
  if (!principal) throw OrganizationErrors.unauthenticated();
  return principal;
});
