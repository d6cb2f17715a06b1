import { DomainError, ErrorDeclaration, problemSettings, sendProblem } from '@app/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, Request, Response } from 'express';

/** Where every problem's `type` points (`{PUBLIC_API_URL}/problems/{code}`, problem.ts). */
export const PROBLEM_PAGE_ROUTE = '/problems/:code';

/** A problem page's path: public, like the API description (partner-auth.middleware.ts). */
export const PROBLEM_PAGE_PATH = /^\/problems\/[^/]+$/;

/**
 * A code's page changes only with a release; a day keeps a partner's dashboards and crawlers off
 * us without leaving a changed wording stale for long. `Vary: Accept`: the HTML and the JSON
 * answer share the URL.
 */
const CACHE_CONTROL = 'public, max-age=86400';

/** What `GET /problems/{code}` answers as JSON: the registry's entry for the code. */
export interface ProblemPage {
  type: string;
  code: string;
  status: number;
  title: string;
  action: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Inline `code` spans of the action's text, after escaping (the text is ours, but escape anyway). */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function renderProblemPage(page: ProblemPage): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.code)}: ${escapeHtml(page.title)} — Scene Studio API</title>`,
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f1f1f1;padding:0 .2em}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(page.title)}</h1>`,
    `<p>Status <strong>${page.status}</strong>, code <code>${escapeHtml(page.code)}</code>.</p>`,
    `<h2>What to do</h2>`,
    `<p>${inlineCode(page.action)}</p>`,
    '<p>Every error of the Scene Studio API is an RFC 9457 problem whose <code>type</code> is a page like this one; ',
    'its <code>code</code> is stable and machine-readable, its <code>detail</code> says what happened to your request, ',
    'and its <code>requestId</code> identifies the request to support.</p>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Serves `GET /problems/{code}` for every code the api's error table holds (core's and its libs'
 * `<lib>.errors.ts`, the one registry; the studio's codes are among them): what a problem's `type`
 * points at. HTML, or JSON for `Accept: application/json`. An unknown code is a `404 not_found`
 * problem like any unknown path. Public and outside the OpenAPI document, like the document itself.
 */
export function serveProblemPages(app: NestExpressApplication, instance: Express): void {
  const problems = problemSettings(app);
  const pages = new Map<string, { json: string; html: string }>();
  const pageOf = (code: string, declared: ErrorDeclaration) => {
    let page = pages.get(code);
    if (!page) {
      const body: ProblemPage = {
        type: `${problems.baseUrl}/problems/${code}`,
        code,
        status: declared.status,
        title: declared.title,
        action: declared.action,
      };
      page = { json: JSON.stringify(body), html: renderProblemPage(body) };
      pages.set(code, page);
    }
    return page;
  };

  instance.get(PROBLEM_PAGE_ROUTE, (req: Request, res: Response) => {
    // A named segment is one string (only wildcards are arrays).
    const { code } = req.params as { code: string };
    const declared = problems.errors.get(code);
    if (!declared) return sendProblem(req, res, DomainError.notFound(), problems);
    const page = pageOf(code, declared);
    res.set({ 'cache-control': CACHE_CONTROL, vary: 'Accept' });
    // HTML unless JSON is preferred: a browser, curl's `*/*` and an Accept we cannot meet get the page.
    if (req.accepts(['text/html', 'application/json']) === 'application/json') {
      res.type('application/json; charset=utf-8').send(page.json);
    } else {
      res.type('text/html; charset=utf-8').send(page.html);
    }
  });
}
