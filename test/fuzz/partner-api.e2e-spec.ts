import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { createEmbedSession } from '../factories/embed.factory';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { createScene, uploadImage } from '../factories/scene.factory';
import { setUpSuite } from '../support/suite';
import { fire, FuzzRequest, HOSTILE_TEXT, pct } from './fuzz-support';

/**
 * A seeded fuzz of the partner API, driven by its own OpenAPI document: every operation gets
 * requests built from its schema and then bent (wrong types, hostile text, junk ids, wrong
 * content types, broken JSON, random multipart), with valid and invalid keys. Whatever comes
 * in, the answer is never a 5xx, every error is a problem document (docs/api.md, "Errors") with its request id,
 * and no answer carries internals or a key. FUZZ_SEED and FUZZ_REQUESTS replay or widen a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5000);
const CONCURRENCY = 16;

type Schema = Record<string, any>;

const ID_PREFIXES = ['scn', 'op', 'img', 'es', 'org', 'key', 'whe', 'msg'];

function resolve(doc: Schema, schema: Schema | undefined): Schema {
  if (schema?.$ref) return doc.components.schemas[String(schema.$ref).split('/').pop()!] as Schema;
  return schema ?? {};
}

/**
 * A value shaped by `schema`, or, one time in four, something else entirely. `hints` gives
 * values that lead somewhere for fields of that name (an existing scene, an approved origin),
 * so requests also get past validation into the deep code.
 */
function valueFor(doc: Schema, raw: Schema | undefined, hints: Record<string, unknown[]>, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const anything = fc.oneof(fc.constantFrom(...HOSTILE_TEXT), fc.jsonValue({ maxDepth: 3 }), fc.integer(), fc.constant(null));
  let shaped: fc.Arbitrary<unknown>;
  if (schema.enum) shaped = fc.constantFrom(...(schema.enum as unknown[]));
  else if (schema.type === 'object' || schema.properties) {
    const props = Object.fromEntries(
      Object.entries<Schema>(schema.properties ?? {}).map(([k, v]) => {
        const shapedValue = depth > 3 ? anything : valueFor(doc, v, hints, depth + 1);
        return [
          k,
          hints[k] ? fc.oneof({ arbitrary: fc.constantFrom(...hints[k]), weight: 2 }, { arbitrary: shapedValue, weight: 1 }) : shapedValue,
        ];
      }),
    );
    shaped = fc
      .tuple(
        fc.record(props, { requiredKeys: [] }),
        fc.option(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 })),
      )
      .map(([record, extra]) => ({ ...(extra ?? {}), ...record }));
  } else if (schema.type === 'integer' || schema.type === 'number') {
    shaped = fc.oneof(
      fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 }),
      fc.double(),
      fc.constantFrom(0, -1, 2 ** 53, 299, 300, 86400, 86401),
    );
  } else if (schema.type === 'string') {
    const examples = [schema.example, ...(schema.examples ?? [])].filter((x) => typeof x === 'string') as string[];
    shaped = fc.oneof(
      ...(examples.length ? [fc.constantFrom(...examples)] : []),
      fc.string({ maxLength: schema.maxLength ? Math.min(schema.maxLength + 5, 300) : 50 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(...HOSTILE_TEXT),
    );
  } else shaped = anything;
  return fc.oneof({ arbitrary: shaped, weight: 3 }, { arbitrary: anything, weight: 1 });
}

/** Path parameters: ids of the right kind that exist, that do not, of other kinds, and junk. */
function pathParam(known: string[]): fc.Arbitrary<string> {
  const ulid = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...known), weight: 3 },
    { arbitrary: fc.tuple(fc.constantFrom(...ID_PREFIXES), ulid).map(([p, u]) => `${p}_${u}`), weight: 2 },
    { arbitrary: fc.constantFrom(...HOSTILE_TEXT).map((t) => pct(t).slice(0, 3000) || 'x'), weight: 1 },
    { arbitrary: fc.constantFrom('%E0%A4%A', '%', '..', 'scn_' + 'A'.repeat(3000), 'op_01JD3Z8Q4W6K2M9T5X7B1C0VH%00'), weight: 1 },
  );
}

describe('fuzzing the partner API from its OpenAPI document', () => {
  // Error lines only: silent while all is well, and a 5xx's log line and stack reach the CI output.
  const suite = setUpSuite({ api: { config: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' } } });
  let doc: Schema;
  let other: TestOrganization;
  let validPng: Buffer;
  const known: Record<string, string[]> = {};

  beforeAll(async () => {
    doc = (await suite.api.http().get('/v1/openapi.json')).body;
    other = await createOrganization(suite.api.app);
    const created = await createScene(suite.api, suite.org, { prompt: 'A lake for the fuzzer', externalRef: 'fuzz-1' });
    const op = created.body.operationId as string;
    const { body: scene } = await suite.api.http().get('/v1/scenes?externalRef=fuzz-1').set(suite.org.auth);
    const asset = await uploadImage(suite.api, suite.org, 64, 36);
    validPng = await image('png', 32, 18);
    const session = await createEmbedSession(suite.api, suite.org, {
      sceneId: scene.sceneId,
      origin: 'http://localhost:5173',
      mode: 'edit',
    });
    const endpoint = await suite.api
      .http()
      .post('/v1/webhook-endpoints')
      .set(suite.org.auth)
      .send({ url: 'http://localhost:9/hooks', events: ['scene.deleted'] });
    Object.assign(known, {
      webhookEndpointId: [endpoint.body.webhookEndpointId],
      messageId: ['msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE'],
      operationId: [op],
      sceneId: [scene.sceneId],
      imageAssetId: [asset],
      embedSessionId: [session.body.embedSessionId],
    });
  });

  function requests(): FuzzRequest[] {
    const hints: Record<string, unknown[]> = {
      sceneId: known.sceneId,
      sourceAssetId: known.imageAssetId,
      origin: ['http://localhost:5173'],
      mode: ['edit', 'perform', 'edit_and_perform'],
      prompt: ['A quiet harbour at dawn'],
      url: ['http://localhost:4567/hooks', 'https://93.184.215.14/hooks', 'https://169.254.169.254/'],
      events: [['scene.deleted'], ['operation.succeeded', 'operation.failed']],
    };
    const queryHints: Record<string, unknown[]> = {
      externalRef: ['fuzz-1'],
      from: ['2026-11-01', '2026-02-29', '2026-11-27'],
      to: ['2026-11-30', '2026-12-31'],
      limit: [1, 5, 100, 101, 0],
      after: known.webhookEndpointId,
      before: known.messageId,
    };
    const operations: Array<fc.Arbitrary<FuzzRequest>> = [];
    for (const [template, item] of Object.entries<Schema>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) {
        const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        // The query parameters the document declares (each shaped by its schema, or junk, or
        // absent), and one it does not know, sometimes.
        const declared = ((op.parameters ?? []) as Schema[])
          .filter((q) => q.in === 'query')
          .map((q) =>
            fc.option(
              valueFor(doc, q.schema, { [q.name]: queryHints[q.name] ?? [] }).map(
                (v) => [q.name, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')] as [string, string],
              ),
            ),
          );
        const stray = fc.option(
          fc.tuple(fc.constantFrom('externalRef', 'x', 'limit', 'from', 'after'), fc.constantFrom(...HOSTILE_TEXT, 'fuzz-1')),
          { freq: 4 },
        );
        const path = fc
          .tuple(fc.tuple(...params.map((p) => pathParam(known[p] ?? ['x']))), fc.tuple(...declared, stray))
          .map(([values, pairs]) => {
            let p = template;
            for (const [i, name] of params.entries()) p = p.replace(`{${name}}`, values[i]);
            const query = (pairs.filter(Boolean) as [string, string][]).map(([k, v]) => `${k}=${pct(v).slice(0, 5000)}`).join('&');
            return query ? `${p}?${query}` : p;
          });
        const jsonSchema = op.requestBody?.content?.['application/json']?.schema;
        const multipart = op.requestBody?.content?.['multipart/form-data'];
        const body: fc.Arbitrary<{ type?: string; bytes?: Buffer }> = jsonSchema
          ? fc.oneof(
              {
                arbitrary: valueFor(doc, jsonSchema, hints).map((v) => ({
                  type: 'application/json',
                  bytes: Buffer.from(JSON.stringify(v) ?? 'null'),
                })),
                weight: 6,
              },
              {
                arbitrary: fc.constant({ type: 'application/json', bytes: Buffer.from(JSON.stringify({ pad: 'x'.repeat(70 * 1024) })) }),
                weight: 1,
              },
              { arbitrary: fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/json', bytes: Buffer.from(s) })), weight: 1 },
              {
                arbitrary: fc
                  .constantFrom(
                    'text/plain',
                    'application/x-www-form-urlencoded',
                    'application/json; charset=latin1',
                    'multipart/form-data; boundary=x',
                  )
                  .map((t) => ({ type: t, bytes: Buffer.from('{"prompt":"x"}') })),
                weight: 1,
              },
            )
          : multipart
            ? fc.oneof(
                fc
                  .tuple(
                    fc.constantFrom('file', 'image', 'file[]', ''),
                    fc.uint8Array({ maxLength: 2048 }),
                    fc.constantFrom('a.png', 'x', '../../x', '\u202E.png'),
                  )
                  .map(([field, bytes, name]) => ({
                    type: 'multipart/form-data; boundary=fuzzb0undary',
                    bytes: Buffer.concat([
                      Buffer.from(
                        `--fuzzb0undary\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`,
                      ),
                      Buffer.from(bytes),
                      Buffer.from('\r\n--fuzzb0undary--\r\n'),
                    ]),
                  })),
                fc
                  .uint8Array({ maxLength: 512 })
                  .map((b) => ({ type: 'multipart/form-data; boundary=fuzzb0undary', bytes: Buffer.from(b) })),
                fc.constant({ type: 'image/png', bytes: Buffer.from('not multipart') }),
                fc.constant({
                  type: 'multipart/form-data; boundary=fuzzb0undary',
                  bytes: Buffer.concat([
                    Buffer.from(
                      '--fuzzb0undary\r\nContent-Disposition: form-data; name="file"; filename="ok.png"\r\nContent-Type: image/png\r\n\r\n',
                    ),
                    validPng,
                    Buffer.from('\r\n--fuzzb0undary--\r\n'),
                  ]),
                }),
              )
            : fc.oneof(
                { arbitrary: fc.constant({}), weight: 4 },
                {
                  arbitrary: fc.jsonValue().map((v) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(v) ?? '') })),
                  weight: 1,
                },
              );
        const auth = fc.oneof(
          { arbitrary: fc.constant(suite.org.auth.Authorization), weight: 8 },
          { arbitrary: fc.constant(other.auth.Authorization), weight: 2 },
          { arbitrary: fc.constantFrom('', 'Bearer', 'Bearer sk_test_x', `Bearer sk_live_${'A'.repeat(43)}`, 'Basic YTpi'), weight: 1 },
        );
        const idempotency = fc.oneof(
          fc.constant(randomUUID()),
          fc.uuid({ version: 4 }),
          fc.constantFrom('', 'not-a-uuid', randomUUID().toUpperCase()),
        );
        operations.push(
          fc.tuple(path, body, auth, idempotency).map(([p, b, a, key]) => ({
            method: method.toUpperCase(),
            path: p,
            headers: { ...(a ? { authorization: a } : {}), ...(b.type ? { 'content-type': b.type } : {}), 'idempotency-key': key },
            body: b.bytes,
          })),
        );
      }
    }
    // Routes that do not exist, and methods the routes do not take.
    operations.push(
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
          fc.constantFrom('/', '/v1', '/v1/', '/V1/scenes', '/v1/scenes/', '/v2/scenes', '/v1/operations', '/%E0%A4%A', '//v1//scenes'),
        )
        .map(([m, p]) => ({
          method: m,
          path: p,
          headers: { authorization: suite.org.auth.Authorization },
        })),
    );
    return fc.sample(fc.oneof(...operations), { seed: SEED, numRuns: REQUESTS });
  }

  it(`${REQUESTS} seeded requests (seed ${SEED}): no 5xx, every error a documented problem, nothing internal`, async () => {
    const all = requests();
    expect(all).toHaveLength(REQUESTS);
    // Declared query parameters are fuzzed too (usage periods, webhook pages).
    for (const declared of [/^\/v1\/usage\?.*from=/, /^\/v1\/webhook-endpoints\?.*limit=/]) {
      expect(all.some((r) => declared.test(r.path))).toBe(true);
    }
    const { failures, statuses } = await fire(suite.api.url, all, CONCURRENCY, [suite.org.apiKey, other.apiKey]);
    expect(failures.slice(0, 20)).toEqual([]);
    // The run reached deep code, not only the front door.
    expect(Object.keys(statuses).map(Number)).toEqual(expect.arrayContaining([200, 201, 202, 204, 400, 401, 404, 413, 415, 422]));
    // The api is still well after the run.
    expect((await suite.api.http().get('/readyz')).status).toBe(200);
  });
});
