import { bearerToken, clientAddress } from '@app/core';
import { EmbedSessionErrors, EmbedSessionsService, SessionWithScene, capabilitiesOf } from '@app/embed-sessions';
import { CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The session named by the studio API call's secret, once the guard checked it. */
      studioSession?: SessionWithScene;
    }
  }
}

export type Capability = 'edit' | 'perform';
const CAPABILITY = 'studio:capability';

/** The mode capability a studio route needs; checked on the server on every call. */
export const RequiresCapability = (capability: Capability) => SetMetadata(CAPABILITY, capability);

/**
 * Every studio API call: the secret (a bearer token, never in a URL) must name an active
 * session whose scene still exists, and the session's mode must allow the route.
 */
@Injectable()
export class StudioSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: EmbedSessionsService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const found = await this.sessions.authenticate(bearerToken(request.headers.authorization), clientAddress(request));
    request.studioSession = found;
    request.organizationId = found.session.organizationId;
    const needed = this.reflector.get<Capability | undefined>(CAPABILITY, context.getHandler());
    if (needed && !capabilitiesOf(found.session.mode)[needed]) throw EmbedSessionErrors.forbidden();
    return true;
  }
}

export const StudioSession = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionWithScene => {
  const found = ctx.switchToHttp().getRequest<Request>().studioSession;
  if (!found) throw EmbedSessionErrors.unauthenticated();
  return found;
});
