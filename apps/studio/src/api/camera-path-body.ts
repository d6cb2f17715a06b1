import { JSON_BODY_LIMIT, JsonBodyLimits, readJsonBody } from '@app/core';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Observable } from 'rxjs';
import { StudioSlots } from '../limits/studio-slots';

/**
 * A camera path's body: a recorded take is a pose per drawn frame, megabytes of JSON, so its
 * writes take up to 8 MiB (the most the document limits allow, libs/camera-paths) within 60 s (a
 * slow uplink) instead of the 64 KiB and 10 s of every other JSON body.
 */
export const CAMERA_PATH_BODY: JsonBodyLimits = { limitBytes: 8 * 1024 * 1024, timeoutMs: 60_000 };

/** `POST /studio-api/v1/camera-paths` and `PUT /studio-api/v1/camera-paths/{id}`, exactly (routing is strict). */
const WRITES = new Map<string, RegExp>([
  ['POST', /^\/studio-api\/v1\/camera-paths$/],
  ['PUT', /^\/studio-api\/v1\/camera-paths\/[^/]+$/],
]);

/**
 * Before the body parser: a camera path's write is left unread there, so nothing of it is read
 * before the route's guards (the session, its mode, its write budget) and a slot admitted it
 * (`CameraPathBodyReader`).
 */
export function deferCameraPathBodies(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (WRITES.get(req.method)?.test(req.path) === true) req.jsonBodyDeferred = true;
    next();
  };
}

/**
 * Reads a camera path's body once every guard let the request through — StudioSessionGuard (an
 * active session whose mode may perform) and StudioWriteBudgetGuard (one of its writes a minute
 * spent) — and after it took one of the session's and the process's write slots, held until the
 * response closes: however many writes a session starts, at most STUDIO_CONCURRENT_WRITES_PER_SESSION
 * of them, and STUDIO_CONCURRENT_WRITES in the process, are read, parsed and stored at once
 * (docs/embed.md, "The studio's limits"). A refused write is answered before its body is read. A
 * body declared at most 64 KiB long (a saved view) is read like any JSON body, without a slot.
 */
@Injectable()
export class CameraPathBodyReader implements NestInterceptor {
  constructor(private readonly slots: StudioSlots) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    let limits = CAMERA_PATH_BODY;
    if (declared <= JSON_BODY_LIMIT) limits = { ...CAMERA_PATH_BODY, limitBytes: JSON_BODY_LIMIT };
    // Set by StudioSessionGuard, which runs first on every studio API controller.
    else this.slots.writes.holdUntilClosed(req.studioSession!.session.id, http.getResponse<Response>());
    req.body = await readJsonBody(req, limits);
    return next.handle();
  }
}
