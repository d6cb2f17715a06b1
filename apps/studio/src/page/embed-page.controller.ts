import { clientAddress, DomainError, isValidId } from '@app/core';
import { EmbedSessionsService, EmbedSessionIdPrefix } from '@app/embed-sessions';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { WebBundle } from './web-bundle';

/**
 * The page itself may load only what it ships with, and talk only to its own origin. The splat
 * renderer (Spark) compiles its bundled WebAssembly from bytes and runs its sorter in a worker
 * built from a `blob:` URL: `'wasm-unsafe-eval'` allows the first without allowing JavaScript
 * `eval`, `worker-src blob:` the second. Nothing else is loosened for it.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const ENDED_STYLE =
  'body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#111318;color:#e8eaf0;display:grid;place-items:center;min-height:100vh}' +
  'main{text-align:center;padding:2rem}h1{font-size:1.25rem;font-weight:600;margin:0 0 .5rem}p{margin:0;color:#a3a9b8}';
const ENDED_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>Session ended · Scene Studio</title><style>${ENDED_STYLE}</style></head><body><main role="main"><h1>This session has ended</h1><p>Ask the site you came from to open the studio again.</p></main></body></html>`;
const ENDED_POLICY = `frame-ancestors 'none'; default-src 'none'; style-src 'sha256-${createHash('sha256').update(ENDED_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'`;

@ApiExcludeController()
@Controller('embed')
export class EmbedPageController {
  constructor(
    private readonly sessions: EmbedSessionsService,
    private readonly bundle: WebBundle,
  ) {}

  /**
   * An active session's studio page, framable only by the session's exact origin. Unknown,
   * malformed, expired and revoked ids all get the same ended page, which no one may frame. An
   * address that spent its budget for unknown ids gets `429 rate_limited` (problem details).
   */
  @Get(':embedSessionId')
  async page(@Param('embedSessionId') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const active = isValidId(EmbedSessionIdPrefix.EmbedSession, id) ? await this.sessions.activeById(id, clientAddress(req)) : null;
    res.set({
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    });
    if (!active) {
      res.status(404).set({ 'content-security-policy': ENDED_POLICY, 'content-type': 'text/html; charset=utf-8' }).send(ENDED_HTML);
      return;
    }
    if (!this.bundle.indexHtml) throw DomainError.unavailable(30);
    res
      .status(200)
      .set({
        'content-security-policy': `frame-ancestors ${active.session.origin}; ${PAGE_POLICY}`,
        'permissions-policy': 'gamepad=(self), hid=(self), fullscreen=(self), camera=(), microphone=(), geolocation=()',
        'content-type': 'text/html; charset=utf-8',
      })
      .send(this.bundle.indexHtml);
  }
}
