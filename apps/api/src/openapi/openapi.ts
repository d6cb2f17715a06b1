import { AppConfig, HealthController, SAFE_REQUEST_ID } from '@app/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ApiExcludeController, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Express } from 'express';
import { PROBLEM_SCHEMA } from './problem.schema';
import { WEBHOOK_EVENTS_TAG, webhookEventSchemas, webhookOperations } from './webhooks.schema';

// The probes are for load balancers, not partners (core's HealthController says why it is not
// decorated there).
ApiExcludeController()(HealthController);

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** The parts of an OpenAPI response object written below. */
interface ResponseObject {
  description?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

/** Errors any authenticated operation can answer with, whatever it does. */
const COMMON_ERRORS: Record<string, string> = {
  '401': 'Missing, malformed, unknown or revoked API key (`unauthenticated`); carries `WWW-Authenticate: Bearer`.',
  '429': 'Rate limit of the organization exceeded (`rate_limited`); carries `Retry-After`.',
  '500': 'Unexpected error (`internal_error`); nothing internal is disclosed.',
  '503': 'A dependency is unavailable (`unavailable`); carries `Retry-After`.',
};

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests allowed per window for the organization.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description: 'Echo of a safe incoming X-Request-Id, or a generated id (a UUID).',
    schema: { type: 'string', pattern: SAFE_REQUEST_ID.source },
  },
};

/**
 * One tag per resource, in the order docs/api.md presents them; each controller carries its own
 * (`@ApiTags`), and every operation has exactly one of these (the OpenAPI test checks it).
 */
export const RESOURCE_TAGS: ReadonlyArray<[name: string, description: string]> = [
  ['Image assets', 'Source images: uploaded once, named by scene creations. An unattached upload expires after 24 hours.'],
  ['Scenes', 'Create 3D scenes (asynchronously, idempotently), find them by id or externalRef, delete them.'],
  ['Operations', 'The asynchronous work behind a scene creation or edit: poll it, or cancel it.'],
  ['Embed sessions', "Short-lived URLs that open the studio on one scene in the partner's page; revoke or extend them."],
  ['Webhook endpoints', 'Where events are delivered, signed per Standard Webhooks; their delivery logs, replays and test sends.'],
  ['Usage', "The organization's usage per UTC day."],
  [WEBHOOK_EVENTS_TAG, 'What the service POSTs to webhook endpoints (the `webhooks` of this document), one body schema per event type.'],
];

/**
 * Builds the OpenAPI 3.1 document from the controllers' decorators, then makes the cross-cutting
 * parts uniform: the bearer scheme, problem+json bodies for every error, the common errors and
 * the headers every response carries; adds the resource tags and the webhooks the service sends.
 */
export function buildOpenApiDocument(app: NestExpressApplication): OpenAPIObject {
  const config = app.get(AppConfig);
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Scene Studio API')
    .setDescription(
      'Partner API of Scene Studio: upload source images, create 3D scenes asynchronously, find and delete them, ' +
        'and issue embed sessions for the studio iframe. Every error is RFC 9457 problem details.',
    )
    .setVersion('1')
    .setContact('Scene Studio', config.publicApiUrl, 'support@scene-studio.invalid')
    .setLicense('Proprietary', `${config.publicApiUrl}/v1/openapi.json`)
    .addServer(config.publicApiUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key: `sk_test_…` or `sk_live_…`.' }, 'apiKey')
    .addSecurityRequirements('apiKey');
  for (const [name, description] of RESOURCE_TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  document.components = document.components ?? {};
  document.components.schemas = {
    ...(document.components.schemas ?? {}),
    Problem: PROBLEM_SCHEMA as never,
    ...(webhookEventSchemas() as Record<string, never>),
  };
  document.webhooks = webhookOperations();

  for (const pathItem of Object.values(document.paths)) {
    for (const op of Object.values(pathItem) as unknown[]) {
      if (!op || typeof op !== 'object' || !('responses' in op) || !op.responses) continue;
      const responses = op.responses as Record<string, ResponseObject>;
      for (const [status, description] of Object.entries(COMMON_ERRORS)) {
        responses[status] = responses[status] ?? { description };
      }
      for (const [status, response] of Object.entries(responses)) {
        const code = Number(status);
        if (code >= 400) {
          response.content = { 'application/problem+json': { schema: PROBLEM_REF } };
          response.headers = { ...REQUEST_ID_HEADER, ...(response.headers ?? {}) };
        } else {
          response.headers = { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS, ...(response.headers ?? {}) };
        }
      }
    }
  }
  return document;
}

/** Served as a plain route: public, outside the document itself, computed once. */
export function serveOpenApi(app: NestExpressApplication, instance: Express): void {
  let cached: string | null = null;
  instance.get('/v1/openapi.json', (_req, res) => {
    cached = cached ?? JSON.stringify(buildOpenApiDocument(app));
    res.set({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' }).send(cached);
  });
}
