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
