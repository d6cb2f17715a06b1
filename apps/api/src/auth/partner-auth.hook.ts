import { AppConfig, DomainError, RateLimiter, RateLimitExceeded, rateLimitHeaders, sendProblem } from '@app/core';
import { ApiKeyAuthenticator, OrganizationErrors, Principal } from '@app/organizations';
import { Logger } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Routes anyone may call: probes, metrics and the API description. */
export const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/v1/openapi.json']);

const logger = new Logger('PartnerAuth');

/**
 * Authenticates and rate-limits every partner request in fastify's onRequest stage, before any
 * body is read: an anonymous caller gets 401 whatever it sends, unknown routes included, and
 * never makes the server parse a body.
 */
export function registerPartnerAuth(app: NestFastifyApplication, fastify: FastifyInstance): void {
  const authenticator = app.get(ApiKeyAuthenticator);
  const limiter = app.get(RateLimiter);
  const problemBase = app.get(AppConfig).publicApiUrl;

  fastify.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (PUBLIC_PATHS.has(path)) return;
    let principal: Principal | null;
    try {
      principal = await authenticator.authenticate(request.headers.authorization);
    } catch (e) {
      logger.warn({ requestId: request.id }, `key verification failed: ${(e as Error).message}`);
      sendProblem(request, reply, DomainError.unavailable(), problemBase);
      return reply;
    }
    if (!principal) {
      sendProblem(request, reply, OrganizationErrors.unauthenticated(), problemBase);
      return reply;
    }
    request.principal = principal;
    request.organizationId = principal.organizationId;
    try {
      reply.headers(rateLimitHeaders(await limiter.consume(principal.organizationId)));
    } catch (e) {
      if (e instanceof RateLimitExceeded) reply.headers(rateLimitHeaders(e.state));
      sendProblem(request, reply, e, problemBase);
      return reply;
    }
  });
}
