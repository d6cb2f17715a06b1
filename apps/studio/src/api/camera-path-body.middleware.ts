import { bearerToken, clientAddress, DomainError, isInfrastructureError, ProblemSettings, sendProblem } from '@app/core';
import { capabilitiesOf, EmbedSessionsService } from '@app/embed-sessions';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A camera path's body: a recorded take is a pose per drawn frame, megabytes of JSON, so its
 * writes take up to 8 MiB (the most the document limits allow, libs/camera-paths) within 60 s (a
 * slow uplink) instead of the 64 KiB and 10 s of every other JSON body.
 */
const CAMERA_PATH_BODY = { limitBytes: 8 * 1024 * 1024, timeoutMs: 60_000 } as const;

/** `POST /studio-api/v1/camera-paths` and `PUT /studio-api/v1/camera-paths/{id}`, exactly (routing is strict). */
const WRITES = new Map<string, RegExp>([
  ['POST', /^\/studio-api\/v1\/camera-paths$/],
  ['PUT', /^\/studio-api\/v1\/camera-paths\/[^/]+$/],
]);

/**
 * Runs before any body is read: grants the larger body only to a request whose secret names an
 * active session that may perform, so nobody without one makes the studio read megabytes. The
 * route's guard still checks the session again after the body arrived (it may end meanwhile). A
 * secret that names no active session is answered here, as the guard would answer it (401, or
 * 429 when its address spent its budget for unknown secrets), without reading the body or looking
 * the secret up a second time; a session whose mode cannot perform keeps the default limit, and
 * the guard answers 403. A dependency that is down is answered here too (503 with Retry-After, as
 * the guard would): left to the default limit, a take would be told it is too large when it only
 * has to be sent again.
 */
export function cameraPathBodyAllowance(sessions: EmbedSessionsService, problems: ProblemSettings): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (WRITES.get(req.method)?.test(req.path) !== true) return next();
    sessions.authenticate(bearerToken(req.headers.authorization), clientAddress(req)).then(
      (found) => {
        if (capabilitiesOf(found.session.mode).perform) req.jsonBodyAllowance = CAMERA_PATH_BODY;
        next();
      },
      (error: unknown) => (error instanceof DomainError || isInfrastructureError(error) ? sendProblem(req, res, error, problems) : next()),
    );
  };
}
