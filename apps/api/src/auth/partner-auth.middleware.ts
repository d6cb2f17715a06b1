import { clientAddress, DomainError, problemSettings, RateLimiter, RateLimitExceeded, RateLimitState, sendProblem } from '@app/core';
import { ApiKeyAuthenticator, OrganizationErrors, Principal } from '@app/organizations';
import { Logger } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { PROBLEM_PAGE_PATH } from '../problems/problem-pages';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The authenticated caller. */
      principal?: Principal;
    }
  }
}

function setRateLimitHeaders(res: Response, s: RateLimitState): void {
  res.setHeader('ratelimit-limit', s.limit);
  res.setHeader('ratelimit-remaining', s.remaining);
  res.setHeader('ratelimit-reset', s.resetSeconds);
  res.setHeader('ratelimit-policy', `${s.limit};w=${s.windowSeconds}`);
}

/**
 * Routes anyone may call: probes, the API description and the problem pages every problem's
 * `type` points at (metrics live on the ops port). Like any unauthenticated request they count
 * against no rate limit: they read nothing but memory.
 */
export const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/v1/openapi.json']);

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.has(path) || PROBLEM_PAGE_PATH.test(path);
}

const logger = new Logger('PartnerAuth');

/**
 * Authenticates and rate-limits every partner request as Express middleware ahead of the body
 * parser and the router: an anonymous caller gets 401 whatever it sends, unknown routes included,
 * and never makes the server read a body. Keys not verified lately cost their client address one
 * of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE; past it they get 429 without a database lookup.
 */
export function partnerAuth(app: NestExpressApplication): RequestHandler {
  const authenticator = app.get(ApiKeyAuthenticator);
  const limiter = app.get(RateLimiter);
  const problemBase = problemSettings(app);

  const authenticate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let principal: Principal | null;
    try {
      principal = await authenticator.authenticate(req.headers.authorization, clientAddress(req));
    } catch (e) {
      // The address spent its budget for lookups of unknown keys: 429, and no query.
      if (e instanceof RateLimitExceeded) return sendProblem(req, res, e, problemBase);
      logger.warn({ requestId: req.requestId }, `key verification failed: ${(e as Error).message}`);
      return sendProblem(req, res, DomainError.unavailable(), problemBase);
    }
    if (!principal) return sendProblem(req, res, OrganizationErrors.unauthenticated(), problemBase);
    req.principal = principal;
    req.organizationId = principal.organizationId;
    try {
      setRateLimitHeaders(res, await limiter.consume(principal.organizationId));
    } catch (e) {
      if (e instanceof RateLimitExceeded) setRateLimitHeaders(res, e.state);
      return sendProblem(req, res, e, problemBase);
    }
    next();
  };

  return (req, res, next) => {
    if (isPublic(req.path)) return next();
    void authenticate(req, res, next);
  };
}
