import { WEBHOOK_EVENT_TYPES } from '@app/webhooks';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../support/processes';
import { setUpSuite } from '../support/suite';

describe('OpenAPI document', () => {
  const suite = setUpSuite({ org: false });
  let doc: Record<string, any>;

  beforeAll(async () => {
    const res = await suite.api.http().get('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('is OpenAPI 3.1 with the bearer scheme and the problem schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.schemas.Problem.required).toEqual(['type', 'title', 'status', 'code', 'detail', 'requestId']);
  });

  it('describes every error of every operation as problem+json', () => {
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<Record<string, any>>(item)) {
        for (const status of ['401', '429', '500', '503']) {
          expect({ path, method, status, has: !!op.responses[status] }).toEqual({ path, method, status, has: true });
        }
        for (const [status, response] of Object.entries<Record<string, any>>(op.responses)) {
          if (Number(status) >= 400) {
            expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
          }
        }
      }
    }
  });

  it('documents every partner route by its documented path, the custom methods included', () => {
    const routes = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'DELETE /v1/embed-sessions/{embedSessionId}',
        'DELETE /v1/scenes/{sceneId}',
        'GET /v1/image-assets/{imageAssetId}',
        'GET /v1/operations/{operationId}',
        'GET /v1/scenes',
        'GET /v1/scenes/{sceneId}',
        'GET /v1/usage',
        'POST /v1/embed-sessions',
        'POST /v1/image-assets',
        'POST /v1/operations/{operationId}:cancel',
        'POST /v1/scenes',
        'POST /v1/embed-sessions/{embedSessionId}:extend',
        'POST /v1/webhook-endpoints',
        'GET /v1/webhook-endpoints',
        'GET /v1/webhook-endpoints/{webhookEndpointId}',
        'PATCH /v1/webhook-endpoints/{webhookEndpointId}',
        'DELETE /v1/webhook-endpoints/{webhookEndpointId}',
        'POST /v1/webhook-endpoints/{webhookEndpointId}:rotate-secret',
        'GET /v1/webhook-endpoints/{webhookEndpointId}/deliveries',
        'POST /v1/webhook-endpoints/{webhookEndpointId}/deliveries/{messageId}:replay',
        'POST /v1/embed-sessions/{embedSessionId}:expire',
        'POST /v1/image-assets/{imageAssetId}:expire',
        'POST /v1/webhook-endpoints/{webhookEndpointId}:test',
      ].sort(),
    );
    const processing = doc.components.schemas.OperationResponse.properties;
    expect(processing.progress).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(processing.stage.enum).toEqual(['queued', 'generating', 'downloading', 'storing']);
  });

  const operations = () =>
    Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Record<string, any>>(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
    );
  const resolve = (schema: Record<string, any>): Record<string, any> =>
    schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

  it('tags every operation with exactly one declared resource tag, and uses every tag', () => {
    const declared = (doc.tags as Array<{ name: string; description: string }>).map((t) => t.name);
    expect(declared).toEqual(['Image assets', 'Scenes', 'Operations', 'Embed sessions', 'Webhook endpoints', 'Usage', 'Webhook events']);
    for (const tag of doc.tags) expect(tag.description).toEqual(expect.any(String));
    const used = new Set<string>();
    const webhookOps = Object.entries<Record<string, any>>(doc.webhooks).map(([type, item]) => ({
      route: `webhook ${type}`,
      op: item.post,
    }));
    for (const { route, op } of [...operations(), ...webhookOps]) {
      expect({ route, tags: op.tags?.length, declared: declared.includes(op.tags?.[0]) }).toEqual({ route, tags: 1, declared: true });
      used.add(op.tags[0]);
    }
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('states the pattern of every id parameter, with its documented prefix, and of Idempotency-Key', () => {
    const PREFIXES: Record<string, string> = {
      sceneId: 'scn',
      operationId: 'op',
      imageAssetId: 'img',
      embedSessionId: 'es',
      webhookEndpointId: 'whe',
      messageId: 'msg',
      after: 'whe',
      before: 'msg',
    };
    let checked = 0;
    for (const { route, op } of operations()) {
      for (const param of (op.parameters ?? []) as Array<Record<string, any>>) {
        if (param.in === 'path' || PREFIXES[param.name]) {
          const prefix = PREFIXES[param.name];
          expect({ route, param: param.name, pattern: param.schema?.pattern }).toEqual({
            route,
            param: param.name,
            pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`,
          });
          checked++;
        }
        if (param.in === 'header') {
          expect({ route, param: param.name, pattern: typeof param.schema?.pattern }).toEqual({
            route,
            param: param.name,
            pattern: 'string',
          });
        }
      }
    }
    // 17 path ids on 16 routes, and the two list cursors.
    expect(checked).toBeGreaterThanOrEqual(19);

    const key = (doc.paths['/v1/scenes'].post.parameters as Array<Record<string, any>>).find((p) => p.name === 'Idempotency-Key')!;
    expect(key).toMatchObject({ in: 'header', required: true });
    const uuid = new RegExp(key.schema.pattern);
    expect(uuid.test(randomUUID())).toBe(true);
    expect(uuid.test(randomUUID().toUpperCase())).toBe(false);
    expect(uuid.test('3f0c8a52-6b1e-1d8f-9a27-5c4e1b2d7f90')).toBe(false); // a v1 UUID
    const requestId = doc.paths['/v1/scenes'].post.responses['202'].headers['X-Request-Id'];
    expect(new RegExp(requestId.schema.pattern).test(randomUUID())).toBe(true);
  });

  it('describes every webhook event the service sends, with its body schema', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES, 'webhook.test'].sort());
    for (const [type, item] of Object.entries<Record<string, any>>(doc.webhooks)) {
      const op = item.post;
      expect(op.security).toEqual([]);
      expect((op.parameters as Array<{ name: string }>).map((p) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(op.responses['2XX']).toBeDefined();
      const body = resolve(op.requestBody.content['application/json'].schema);
      expect(body.required).toEqual(['type', 'timestamp', 'data']);
      expect(body.properties.type.const).toBe(type);
      expect(body.properties.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
      expect(resolve(body.properties.data).type).toBe('object');
    }
    const data = (type: string) => resolve(resolve(doc.webhooks[type].post.requestBody.content['application/json'].schema).properties.data);
    expect(data('operation.succeeded')).toBe(doc.components.schemas.OperationResponse);
    expect(data('operation.failed')).toBe(doc.components.schemas.OperationResponse);
    expect(data('scene.deleted').required).toEqual(['sceneId', 'externalRef']);
    expect(data('embed_session.ended').properties.reason.enum).toEqual(['revoked', 'expired', 'scene_deleted']);
    expect(data('webhook.test').required).toEqual(['webhookEndpointId']);
  });

  it("states an upload's unusableReasons and a problem's errors", () => {
    const asset = doc.components.schemas.ImageAssetResponse;
    expect(asset.required).toEqual(expect.arrayContaining(['usableAsSceneSource', 'unusableReasons']));
    expect(resolve(asset.properties.unusableReasons.items).properties.code.enum).toEqual([
      'source_image_too_small',
      'source_image_aspect_ratio',
    ]);
    const problem = doc.components.schemas.Problem;
    expect(problem.properties.errors.items.required).toEqual(['field', 'code', 'message']);
    expect(problem.properties.type.description).toContain('/problems/{code}');
  });

  it('passes spectral:oas without errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = await run(process.execPath, [
      join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js'),
      'lint',
      file,
      '--ruleset',
      join(ROOT, '.spectral.yaml'),
      '--format',
      'json',
      '--fail-severity',
      'error',
      '--quiet',
    ]);
    const results: Array<{ code: string; message: string; severity: number; path: string[] }> = r.stdout.trim() ? JSON.parse(r.stdout) : [];
    const errors = results.filter((x) => x.severity === 0);
    expect(errors).toEqual([]);
    expect(r.code).toBe(0);
  });
});
