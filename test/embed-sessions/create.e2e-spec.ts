import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

const EMBED_ORIGIN = 'http://localhost:3001';

/** A ULID part's value (Crockford base32). */
function crockford(text: string): bigint {
  return [...text].reduce((value, c) => value * 32n + BigInt('0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c)), 0n);
}

describe('POST /v1/embed-sessions and DELETE /v1/embed-sessions/{id}', () => {
  const suite = setUpSuite({ api: { config: { PUBLIC_EMBED_ORIGIN: EMBED_ORIGIN } }, worker: {}, org: false });
  let testOrg: TestOrganization;
  let liveOrg: TestOrganization;
  let testScene: string;
  let liveScene: string;

  beforeAll(async () => {
    testOrg = await createOrganization(suite.api.app, { test: true, origins: ['https://sandbox.acme.example'] });
    liveOrg = await createOrganization(suite.api.app, {
      test: false,
      origins: ['https://app.acme.example', 'https://app.acme.example:8443'],
    });
    testScene = await readyScene(suite.api, testOrg);
    liveScene = await readyScene(suite.api, liveOrg);
  });

  const valid = (overrides: Record<string, unknown> = {}) => ({
    sceneId: testScene,
    origin: 'http://localhost:5173',
    mode: 'perform',
    ...overrides,
  });

  it('answers 201 with a secret URL, private and never stored in clear', async () => {
    const res = await createEmbedSession(suite.api, testOrg, valid({ expiresInSeconds: 600 }));
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body).toEqual({
      embedSessionId: expect.stringMatching(/^es_[0-9A-HJKMNP-TV-Z]{26}$/),
      url: expect.any(String),
      sceneId: testScene,
      mode: 'perform',
      origin: 'http://localhost:5173',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
      theme: { partnerName: null, accentColor: '#4f8cff', colorScheme: 'dark', helpText: null },
    });
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(600_000);
    const url = parseEmbedUrl(res.body.url);
    expect(url.origin).toBe(EMBED_ORIGIN);
    expect(url.path).toBe(`/embed/${res.body.embedSessionId}`);
    expect(url.search).toBe('');
    expect(url.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const session = await stored(suite.api.app.get(DataSource)).embedSession(res.body.embedSessionId);
    expect(session.secretHash).toBe(createHash('sha256').update(url.secret).digest('hex'));
    expect(JSON.stringify(session)).not.toContain(url.secret);
  });

  it('defaults expiresInSeconds to 3600 and applies the theme given', async () => {
    const res = await createEmbedSession(
      suite.api,
      testOrg,
      valid({ mode: 'edit', theme: { partnerName: 'Acme', accentColor: '#FF6600', colorScheme: 'light', helpText: 'Ask Jo.' } }),
    );
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(3_600_000);
    expect(res.body.theme).toEqual({ partnerName: 'Acme', accentColor: '#ff6600', colorScheme: 'light', helpText: 'Ask Jo.' });
  });

  it('every session gets its own secret', async () => {
    const a = parseEmbedUrl((await createEmbedSession(suite.api, testOrg, valid())).body.url);
    const b = parseEmbedUrl((await createEmbedSession(suite.api, testOrg, valid())).body.url);
    expect(a.secret).not.toBe(b.secret);
  });

  it("an id made in the same millisecond as another organization's is far from it, though after it", async () => {
    // Both requests in one millisecond, as far as the id generator can tell: the case where
    // ids used to differ by exactly 1.
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    let ids: string[];
    try {
      const a = await createEmbedSession(suite.api, testOrg, valid());
      const b = await createEmbedSession(suite.api, liveOrg, { sceneId: liveScene, origin: 'https://app.acme.example', mode: 'edit' });
      ids = [a.body.embedSessionId, b.body.embedSessionId];
    } finally {
      clock.mockRestore();
    }
    const [a, b] = ids.map((id) => ({ time: id.slice(3, 13), random: crockford(id.slice(13)) }));
    expect(b.time).toBe(a.time);
    expect(b.random - a.random).toBeGreaterThanOrEqual(2n ** 40n);
  });

  describe('validation (422 validation_failed)', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['sceneId missing', { sceneId: undefined }, 'sceneId'],
      ['sceneId malformed', { sceneId: 'scn_x' }, 'sceneId'],
      ['origin missing', { origin: undefined }, 'origin'],
      ['mode missing', { mode: undefined }, 'mode'],
      ['mode unknown', { mode: 'admin' }, 'mode'],
      ['mode in upper case', { mode: 'EDIT' }, 'mode'],
      ['expiresInSeconds 299', { expiresInSeconds: 299 }, 'expiresInSeconds'],
      ['expiresInSeconds 86401', { expiresInSeconds: 86401 }, 'expiresInSeconds'],
      ['expiresInSeconds fractional', { expiresInSeconds: 3600.5 }, 'expiresInSeconds'],
      ['expiresInSeconds as a string', { expiresInSeconds: '3600' }, 'expiresInSeconds'],
      ['theme not an object', { theme: 'dark' }, 'theme'],
      ['accentColor short form', { theme: { accentColor: '#f60' } }, 'theme.accentColor'],
      ['accentColor a name', { theme: { accentColor: 'orange' } }, 'theme.accentColor'],
      ['accentColor without #', { theme: { accentColor: 'ff6600' } }, 'theme.accentColor'],
      ['colorScheme unknown', { theme: { colorScheme: 'sepia' } }, 'theme.colorScheme'],
      ['helpText not a string', { theme: { helpText: 42 } }, 'theme.helpText'],
      ['partnerName empty', { theme: { partnerName: '' } }, 'theme.partnerName'],
      ['partnerName of 81 characters', { theme: { partnerName: 'x'.repeat(81) } }, 'theme.partnerName'],
      ['an unknown field', { scene: 'x' }, 'scene'],
      ['an unknown theme field', { theme: { font: 'Comic Sans' } }, 'theme.font'],
    ])('%s', async (_, overrides, field) => {
      const body: Record<string, unknown> = valid(overrides);
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const res = await createEmbedSession(suite.api, testOrg, body);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['partnerName with a NUL', { partnerName: 'Ac\u0000me' }, 'theme.partnerName', 'invalid_characters'],
      ['partnerName with a right-to-left override', { partnerName: 'Acme\u202Eevil' }, 'theme.partnerName', 'invalid_characters'],
      ['partnerName of only spaces', { partnerName: '   ' }, 'theme.partnerName', 'blank'],
      ['helpText with a NUL', { helpText: 'Ask\u0000Jo' }, 'theme.helpText', 'invalid_characters'],
      ['helpText with an unpaired surrogate', { helpText: 'Ask \ud800 Jo' }, 'theme.helpText', 'invalid_characters'],
      ['helpText of 2001 characters', { helpText: 'x'.repeat(2001) }, 'theme.helpText', 'too_long'],
    ])('theme text: %s → 422 with the field and its code, never a 500', async (_, theme, field, code) => {
      const res = await createEmbedSession(suite.api, testOrg, valid({ theme }));
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
    });

    it.each([
      'http://localhost:5173/',
      'http://localhost:5173/path',
      'http://localhost:5173?x=1',
      'http://localhost:5173#frag',
      'http://user:pw@localhost:5173',
      'http://LOCALHOST:5173',
      'https://sandbox.acme.example:443',
      'http://localhost:80',
      'sandbox.acme.example',
      'null',
      '*',
      'file:///etc/passwd',
      'javascript:alert(1)',
      ' http://localhost:5173',
    ])('origin %p is not a serialized origin', async (origin) => {
      const res = await createEmbedSession(suite.api, testOrg, valid({ origin }));
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'origin', code: 'invalid_format' })]);
    });

    it('accepts helpText null and the boundaries 300 and 86400', async () => {
      expect((await createEmbedSession(suite.api, testOrg, valid({ theme: { helpText: null } }))).status).toBe(201);
      expect((await createEmbedSession(suite.api, testOrg, valid({ expiresInSeconds: 300 }))).status).toBe(201);
      expect((await createEmbedSession(suite.api, testOrg, valid({ expiresInSeconds: 86400 }))).status).toBe(201);
    });
  });

  describe('origin rules', () => {
    it.each<[string, 'test' | 'live', string, 201 | 'origin_not_allowed']>([
      ['live: an approved HTTPS origin', 'live', 'https://app.acme.example', 201],
      ['live: an approved HTTPS origin with its port', 'live', 'https://app.acme.example:8443', 201],
      ['live: the approved host on another port', 'live', 'https://app.acme.example:9443', 'origin_not_allowed'],
      ['live: the approved host over http', 'live', 'http://app.acme.example', 'origin_not_allowed'],
      ['live: a subdomain of an approved origin', 'live', 'https://evil.app.acme.example', 'origin_not_allowed'],
      ['live: an unapproved HTTPS origin', 'live', 'https://other.example', 'origin_not_allowed'],
      ['live: localhost', 'live', 'http://localhost:3000', 'origin_not_allowed'],
      ['test: exact http://localhost:<port>', 'test', 'http://localhost:3000', 201],
      ['test: another localhost port', 'test', 'http://localhost:65535', 201],
      ['test: its approved HTTPS origin', 'test', 'https://sandbox.acme.example', 201],
      ['test: localhost without a port', 'test', 'http://localhost', 'origin_not_allowed'],
      ['test: https://localhost:<port>', 'test', 'https://localhost:3000', 'origin_not_allowed'],
      ['test: 127.0.0.1', 'test', 'http://127.0.0.1:3000', 'origin_not_allowed'],
      ['test: a look-alike localhost host', 'test', 'http://localhost.evil.example:3000', 'origin_not_allowed'],
      ['test: an unapproved HTTPS origin', 'test', 'https://other.example', 'origin_not_allowed'],
    ])('%s', async (_, kind, origin, expected) => {
      const org = kind === 'test' ? testOrg : liveOrg;
      const res = await createEmbedSession(suite.api, org, { sceneId: kind === 'test' ? testScene : liveScene, origin, mode: 'edit' });
      if (expected === 201) expect(res.status).toBe(201);
      else expectProblem(res, 422, 'origin_not_allowed');
    });
  });

  describe('the scene', () => {
    it("unknown, another organization's, deleted and failed scenes answer alike: 404", async () => {
      const deleted = await readyScene(suite.api, testOrg);
      await suite.api.http().delete(`/v1/scenes/${deleted}`).set(testOrg.auth);
      const answers = [];
      for (const sceneId of ['scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', liveScene, deleted]) {
        const res = await createEmbedSession(suite.api, testOrg, valid({ sceneId }));
        expectProblem(res, 404, 'not_found');
        answers.push({ ...res.body, requestId: undefined });
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    });

    it('a scene still generating can have a session (the studio shows its progress)', async () => {
      const created = await createScene(suite.api, testOrg, { prompt: 'just accepted' });
      const { sceneId } = await stored(suite.api.app.get(DataSource)).operation(created.body.operationId);
      expect((await createEmbedSession(suite.api, testOrg, valid({ sceneId }))).status).toBe(201);
    });
  });

  describe('DELETE /v1/embed-sessions/{id}', () => {
    const revokedAt = async (id: string) =>
      (await suite.api.app.get(DataSource).query(`SELECT revoked_at FROM embed_sessions WHERE id = $1`, [id]))[0].revoked_at;

    it('revokes, idempotently, answering 204 every time', async () => {
      const { embedSessionId } = (await createEmbedSession(suite.api, testOrg, valid())).body;
      for (let i = 0; i < 2; i++) {
        const res = await suite.api.http().delete(`/v1/embed-sessions/${embedSessionId}`).set(testOrg.auth);
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
      }
      expect(await revokedAt(embedSessionId)).not.toBeNull();
    });

    it("another organization's DELETE answers 204 and leaves the session working", async () => {
      const { embedSessionId } = (await createEmbedSession(suite.api, testOrg, valid())).body;
      const foreign = await suite.api.http().delete(`/v1/embed-sessions/${embedSessionId}`).set(liveOrg.auth);
      const unknown = await suite.api.http().delete('/v1/embed-sessions/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(liveOrg.auth);
      expect(foreign.status).toBe(204);
      expect(unknown.status).toBe(204);
      const keys = (h: Record<string, string>) =>
        Object.keys(h)
          .filter((k) => !['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset'].includes(k))
          .sort();
      expect(keys(foreign.headers)).toEqual(keys(unknown.headers));
      expect(await revokedAt(embedSessionId)).toBeNull();
    });

    it('400 invalid_id for ids that are not embed session ids', async () => {
      for (const bad of ['es_1', 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', 'es_01jd3z8q4w6k2m9t5x7b1c0vhe']) {
        expectProblem(await suite.api.http().delete(`/v1/embed-sessions/${bad}`).set(testOrg.auth), 400, 'invalid_id');
      }
    });

    it('deleting the scene revokes its active sessions: ended at once, their rows marked by the follow-up job', async () => {
      const sceneId = await readyScene(suite.api, testOrg);
      const a = (await createEmbedSession(suite.api, testOrg, valid({ sceneId }))).body.embedSessionId;
      const b = (await createEmbedSession(suite.api, testOrg, valid({ sceneId, mode: 'edit' }))).body.embedSessionId;
      expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(testOrg.auth)).status).toBe(204);
      for (const id of [a, b]) {
        const extended = await suite.api.http().post(`/v1/embed-sessions/${id}:extend`).set(testOrg.auth).send({ expiresInSeconds: 3600 });
        expectProblem(extended, 404, 'not_found');
      }
      const sessions = await pollUntil(
        () => stored(suite.api.app.get(DataSource)).embedSessions([a, b]),
        (rows) => rows.every((r) => r.revokedAt !== null),
        { what: 'the follow-up job to mark the sessions revoked' },
      );
      expect(sessions).toHaveLength(2);
      for (const r of sessions) expect(r).toMatchObject({ revokedAt: expect.any(Date), revokedReason: 'scene_deleted' });
    });
  });

  it('requires authentication like every partner route', async () => {
    expectProblem(await suite.api.http().post('/v1/embed-sessions').send(valid()), 401, 'unauthenticated');
    expectProblem(await suite.api.http().delete('/v1/embed-sessions/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE'), 401, 'unauthenticated');
  });
});
