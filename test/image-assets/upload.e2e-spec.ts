import { UploadGate } from '@apps/api/uploads/upload-gate';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { createOrganization } from '../factories/organization.factory';
import { foreignFiles, image, pngBombHeader, pngOfExactSize, rotatedJpeg } from '../factories/images';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { RawConnection, RawResponse } from '../support/raw-http';
import { setUpSuite } from '../support/suite';

const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /v1/image-assets', () => {
  const suite = setUpSuite();

  const upload = (bytes: Buffer, filename = 'image.bin', contentType = 'application/octet-stream', field = 'file') =>
    suite.api.http().post('/v1/image-assets').set(suite.org.auth).attach(field, bytes, { filename, contentType });

  describe('accepts PNG, JPEG and WebP with exact metadata', () => {
    it.each([
      ['png', 1920, 1080, []],
      ['jpeg', 1280, 720, []],
      ['webp', 1600, 900, []],
      ['png', 1279, 720, ['source_image_too_small']],
      ['jpeg', 1920, 1200, ['source_image_aspect_ratio']],
      // Both rules broken: both told, size first.
      ['png', 1024, 1024, ['source_image_too_small', 'source_image_aspect_ratio']],
    ] as const)('%s %d×%d (scene-source rules broken: %j)', async (kind, width, height, broken) => {
      const bytes = await image(kind, width, height);
      const res = await upload(bytes, `photo.${kind}`, `image/${kind}`);
      expect(res.status).toBe(201);
      expect(res.headers['location']).toBe(`/v1/image-assets/${res.body.imageAssetId}`);
      expect(res.headers['server-timing']).toMatch(/^validate;dur=\d+(\.\d)?$/);
      expect(res.body).toEqual({
        imageAssetId: expect.stringMatching(/^img_[0-9A-HJKMNP-TV-Z]{26}$/),
        format: kind,
        width,
        height,
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
        status: 'unattached',
        usableAsSceneSource: broken.length === 0,
        unusableReasons: broken.map((code) => ({ code, message: expect.stringContaining(`${width}×${height}`) })),
        createdAt: expect.stringMatching(ISO),
        expiresAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(24 * 3600 * 1000);

      const got = await suite.api.http().get(res.headers['location']).set(suite.org.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });
  });

  it('judges by the bytes: PNG bytes named x.jpg and declared image/jpeg are a png', async () => {
    const bytes = await image('png', 64, 64);
    const res = await upload(bytes, 'x.jpg', 'image/jpeg');
    expect(res.status).toBe(201);
    expect(res.body.format).toBe('png');
  });

  it('turns a 24-megapixel 16-bit RGBA PNG upright, its re-encode within the memory budget', async () => {
    // The shape of issue 34: 0.27 MiB, 6000×4000 16-bit RGBA, orientation 6 (its memory: bench:assets).
    const png = await sharp({ create: { width: 6000, height: 4000, channels: 4, background: { r: 200, g: 80, b: 20, alpha: 0.6 } } })
      .toColourspace('rgb16')
      .png()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const res = await upload(png);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'png', width: 4000, height: 6000 });
  });

  it('reports dimensions as displayed, after the EXIF orientation', async () => {
    const res = await upload(await rotatedJpeg(1080, 1920, 6), 'portrait.jpg', 'image/jpeg');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'jpeg', width: 1920, height: 1080, usableAsSceneSource: true });
  });

  describe('refuses other formats with 422 unsupported_image_format, whatever they are called', () => {
    it.each(Object.keys(foreignFiles))('%s', async (kind) => {
      const res = await upload(await foreignFiles[kind](), 'innocent.png', 'image/png');
      expectProblem(res, 422, 'unsupported_image_format');
    });
  });

  describe('refuses damaged data with 422 image_corrupt', () => {
    it.each(['png', 'jpeg', 'webp'] as const)('truncated %s', async (kind) => {
      const bytes = await image(kind, 640, 360, { noise: true });
      expectProblem(await upload(bytes.subarray(0, Math.floor(bytes.length * 0.6))), 422, 'image_corrupt');
    });

    it('a PNG missing only its last bytes', async () => {
      const bytes = await image('png', 640, 360, { noise: true });
      expectProblem(await upload(bytes.subarray(0, bytes.length - 200)), 422, 'image_corrupt');
    });

    it('a PNG signature followed by garbage', async () => {
      const bytes = Buffer.concat([(await image('png', 8, 8)).subarray(0, 8), Buffer.alloc(500, 0x41)]);
      expectProblem(await upload(bytes), 422, 'image_corrupt');
    });

    it('damaged bytes in the middle of a PNG', async () => {
      const bytes = Buffer.from(await image('png', 640, 360, { noise: true }));
      bytes.fill(0x00, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 2000);
      expectProblem(await upload(bytes), 422, 'image_corrupt');
    });

    it('a JPEG with a damaged Huffman table', async () => {
      const bytes = Buffer.from(await image('jpeg', 640, 360, { noise: true }));
      const dht = bytes.indexOf(Buffer.from([0xff, 0xc4]));
      expect(dht).toBeGreaterThan(0);
      bytes.fill(0xff, dht + 5, dht + 21); // the 16 code-length counts: impossible table
      expectProblem(await upload(bytes), 422, 'image_corrupt');
    });
  });

  describe('refuses oversized dimensions with 422 image_dimensions_exceeded', () => {
    it('6145 px wide', async () => {
      const res = await upload(await image('png', 6145, 8));
      expectProblem(res, 422, 'image_dimensions_exceeded');
      expect(res.body.detail).toContain('6145×8');
    });

    it('6145 px high', async () => {
      expectProblem(await upload(await image('webp', 8, 6145)), 422, 'image_dimensions_exceeded');
    });

    it('5000×4900 (24.5 megapixels)', async () => {
      expectProblem(await upload(await image('jpeg', 5000, 4900)), 422, 'image_dimensions_exceeded');
    });

    it('accepts 6144×3906 (just under 24 megapixels)', async () => {
      const res = await upload(await image('png', 6144, 3906));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ width: 6144, height: 3906 });
    });

    it('an image that has to be turned, whose re-encode would not fit in the memory budget even alone (a 12-megapixel lossless WebP)', async () => {
      const webp = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#345' } })
        .webp({ lossless: true })
        .withMetadata({ orientation: 6 })
        .toBuffer();
      const res = await upload(webp);
      expectProblem(res, 422, 'image_dimensions_exceeded');
      expect(res.body.detail).toMatch(/^The image is 3000×4000 pixels and has to be turned upright .* up to [\d,]+ pixels\.$/);
    });

    it('a hand-made bomb header claiming 60000×60000, from its header alone', async () => {
      const bomb = pngBombHeader(60000, 60000);
      expect(bomb.length).toBeLessThan(1024);
      const res = await upload(bomb);
      expectProblem(res, 422, 'image_dimensions_exceeded');
      expect(res.body.detail).toContain('60000×60000');
    });
  });

  describe('the 20 MiB limit', () => {
    it('accepts a valid image of exactly 20 MiB (20 971 520 bytes)', async () => {
      const bytes = await pngOfExactSize(20 * MiB);
      const res = await upload(bytes, 'big.png', 'image/png');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ sizeBytes: 20 * MiB, sha256: sha256(bytes), format: 'png' });
    });

    it('refuses one byte more with 413 payload_too_large', async () => {
      const bytes = await pngOfExactSize(20 * MiB + 1);
      expectProblem(await upload(bytes, 'big.png', 'image/png'), 413, 'payload_too_large');
    });

    it('refuses a huge declared body before reading it', async () => {
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .set(suite.org.auth)
        .set('Content-Type', 'multipart/form-data; boundary=x')
        .set('Content-Length', String(200 * MiB))
        .send(Buffer.alloc(1024))
        .catch((e: { response?: unknown }) => e.response as never);
      expectProblem(res, 413, 'payload_too_large');
    });
  });

  describe('the multipart shape', () => {
    it('no file part is 422 validation_failed', async () => {
      const res = await suite.api.http().post('/v1/image-assets').set(suite.org.auth).field('note', 'hello');
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([{ field: 'file', code: 'required', message: expect.any(String) }]);
    });

    it('a file under another name is 422 validation_failed', async () => {
      const res = await upload(await image('png', 8, 8), 'a.png', 'image/png', 'image');
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors[0]).toMatchObject({ field: 'file', code: 'unknown_field' });
    });

    it('two files are 422 validation_failed', async () => {
      const png = await image('png', 8, 8);
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .set(suite.org.auth)
        .attach('file', png, { filename: 'a.png', contentType: 'image/png' })
        .attach('file', png, { filename: 'b.png', contentType: 'image/png' });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors[0]).toMatchObject({ field: 'file', code: 'too_many_files' });
    });

    it('a JSON body is 415 unsupported_media_type', async () => {
      const res = await suite.api.http().post('/v1/image-assets').set(suite.org.auth).send({ file: 'aGVsbG8=' });
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('a raw image body is 415 unsupported_media_type', async () => {
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .set(suite.org.auth)
        .set('Content-Type', 'image/png')
        .send(await image('png', 8, 8));
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('a malformed multipart body is 400 bad_request', async () => {
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .set(suite.org.auth)
        .set('Content-Type', 'multipart/form-data; boundary=abc')
        .send('--abc\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\npartial');
      expectProblem(res, 400, 'bad_request');
    });

    it('requires authentication before reading anything', async () => {
      const res = await suite.api
        .http()
        .post('/v1/image-assets')
        .attach('file', await image('png', 8, 8), 'a.png');
      expectProblem(res, 401, 'unauthenticated');
    });
  });

  describe('GET /v1/image-assets/{id}', () => {
    it('400 invalid_id for a malformed id', async () => {
      for (const bad of [
        'nope',
        'img_123',
        'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
        'img_01JD3Z8Q4W6K2M9T5X7B1C0VHU',
        'img_01jd3z8q4w6k2m9t5x7b1c0vhe',
      ]) {
        expectProblem(await suite.api.http().get(`/v1/image-assets/${bad}`).set(suite.org.auth), 400, 'invalid_id');
      }
    });

    it("another organization's asset answers exactly like an unknown one", async () => {
      const other = await createOrganization(suite.api.app);
      const created = await upload(await image('png', 32, 32));
      expect(created.status).toBe(201);
      const foreign = await suite.api.http().get(`/v1/image-assets/${created.body.imageAssetId}`).set(other.auth);
      const unknown = await suite.api.http().get('/v1/image-assets/img_01JD3Z8Q4W6K2M9T5X7B1C0VHE').set(other.auth);
      expectProblem(foreign, 404, 'not_found');
      expectProblem(unknown, 404, 'not_found');
      const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
      expect(strip(foreign.body)).toEqual(strip(unknown.body));
      expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    });
  });
});

/** A multipart body with one file part, and the request head that announces it. */
function multipartUpload(file: Buffer, auth: string, boundary = 'b0undary') {
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const head =
    `POST /v1/image-assets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return { head, body };
}

describe('POST /v1/image-assets, read as a stream', () => {
  const suite = setUpSuite();
  const port = () => Number(new URL(suite.api.url).port);

  it('cuts a chunked body off once its file passes 20 MiB: 413, and nothing more is read', async () => {
    const conn = await RawConnection.open(port());
    const frame = (data: Buffer | string) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
      return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
    };
    await conn.write(
      `POST /v1/image-assets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${suite.org.auth.Authorization}\r\n` +
        'Content-Type: multipart/form-data; boundary=endless\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    await conn.write(
      frame('--endless\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'),
    );
    let answer: RawResponse | null = null;
    const answered = conn.response(60_000).then((r) => (answer = r));
    // A file that never ends: keep sending until the server answers (or 100 MiB).
    const piece = frame(Buffer.alloc(256 * 1024, 0x41));
    let sent = 0;
    while (!answer && !conn.closed && sent < 100 * MiB) {
      await conn.write(piece).catch(() => undefined);
      sent += 256 * 1024;
    }
    const res = await answered;
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large' });
    // Answered while the client was still sending (kernel buffers hold a few MiB in flight) …
    expect(sent).toBeGreaterThan(20 * MiB);
    expect(sent).toBeLessThan(40 * MiB);
    // … and the server closes the connection rather than read the rest of an endless body.
    await conn.closedPromise;
  });

  it('refuses a declared length over the cap at once and closes the connection without reading the body', async () => {
    const conn = await RawConnection.open(port());
    await conn.write(
      `POST /v1/image-assets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${suite.org.auth.Authorization}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${200 * MiB}\r\n\r\n`,
    );
    const res = await conn.response();
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large' });
    // No byte of the body was sent: the server gives up waiting for it after its short linger.
    await conn.closedPromise;
  });

  it('too many parts is 422 validation_failed (too_many_parts); an over-long text part is too_long', async () => {
    const many = suite.api.http().post('/v1/image-assets').set(suite.org.auth);
    for (let i = 0; i < 25; i++) many.field(`note${i}`, 'x');
    const res = await many.attach('file', await image('png', 8, 8), 'a.png');
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors[0]).toMatchObject({ field: 'file', code: 'too_many_parts' });

    const long = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .field('note', 'x'.repeat(5000))
      .attach('file', await image('png', 8, 8), 'a.png');
    expectProblem(long, 422, 'validation_failed');
    expect(long.body.errors[0]).toMatchObject({ code: 'too_long' });
  });

  it('a client that stops mid-body gets 400, and its slot is free again', async () => {
    const { head, body } = multipartUpload(await image('png', 64, 64), suite.org.auth.Authorization);
    const conn = await RawConnection.open(port());
    await conn.write(Buffer.concat([Buffer.from(head), body.subarray(0, body.length - 20)]));
    // Half-close: the body ends 20 bytes short of its declared length.
    conn.socket.end();
    // Node's HTTP parser refuses the message cut short; the answer is still a problem.
    const res = await conn.response();
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request', requestId: res.headers['x-request-id'] });
    await conn.closedPromise;
    await pollUntil(
      async () => suite.api.app.get(UploadGate).inUse,
      (n) => n === 0,
      { what: 'the slot to be released' },
    );
    const after = await suite.api
      .http()
      .post('/v1/image-assets')
      .set(suite.org.auth)
      .attach('file', await image('png', 8, 8), 'a.png');
    expect(after.status).toBe(201);
  });
});

describe('POST /v1/image-assets with one upload slot', () => {
  // A's body stalls on purpose while B waits: on a busy machine (other test files in parallel)
  // that may take longer than the default 10 s idle timeout, which would end A and free the slot.
  const suite = setUpSuite({ api: { config: { UPLOAD_CONCURRENCY: '1', UPLOAD_IDLE_TIMEOUT_SECONDS: '120' } } });

  it('an upload waiting for the slot stays unread until the slot frees, then succeeds', async () => {
    const port = Number(new URL(suite.api.url).port);
    const gate = suite.api.app.get(UploadGate);
    const serverSockets: Socket[] = [];
    (suite.api.app.getHttpServer() as Server).on('connection', (s: Socket) => serverSockets.push(s));

    // Both bodies made before A takes the slot: a 12 MiB PNG takes sharp a while.
    const first = multipartUpload(await image('png', 640, 360, { noise: true }), suite.org.auth.Authorization);
    const second = multipartUpload(await pngOfExactSize(12 * MiB), suite.org.auth.Authorization);

    // A holds the slot: half of its body arrives, the rest waits.
    const a = await RawConnection.open(port);
    await a.write(Buffer.concat([Buffer.from(first.head), first.body.subarray(0, first.body.length >> 1)]));
    await pollUntil(
      async () => gate.inUse,
      (n) => n === 1,
      { what: 'the first upload to take the slot' },
    );

    // B sends all of a 12 MiB upload at once; the server must not read it while A holds the slot.
    const b = await RawConnection.open(port);
    const bSent = b.write(Buffer.concat([Buffer.from(second.head), second.body]));
    await pollUntil(
      async () => gate.waiting,
      (n) => n === 1,
      { what: 'the second upload to wait for the slot', timeoutMs: 30_000 },
    );
    const bOnServer = serverSockets.find((s) => s.remotePort === b.socket.localPort)!;
    expect(bOnServer.bytesRead).toBeLessThan(1 * MiB);

    await a.write(first.body.subarray(first.body.length >> 1));
    expect((await a.response()).status).toBe(201);
    const resB = await b.response(60_000);
    expect(resB.status).toBe(201);
    expect(resB.json()).toMatchObject({ sizeBytes: 12 * MiB });
    await bSent;
    expect(bOnServer.bytesRead).toBeGreaterThan(12 * MiB);
    a.destroy();
    b.destroy();
  });
});

describe('POST /v1/image-assets: a client gone while its upload waits', () => {
  // A long queue timeout: the waiter must leave because its client left, not because it timed out.
  const suite = setUpSuite({ api: { config: { UPLOAD_CONCURRENCY: '1', UPLOAD_QUEUE_TIMEOUT_SECONDS: '300' } } });

  it('leaves the queue at once, and the slot then goes to the next upload', async () => {
    const port = Number(new URL(suite.api.url).port);
    const gate = suite.api.app.get(UploadGate);
    const first = multipartUpload(await image('png', 320, 180, { noise: true }), suite.org.auth.Authorization);
    const holder = await RawConnection.open(port);
    await holder.write(Buffer.concat([Buffer.from(first.head), first.body.subarray(0, 100)]));
    await pollUntil(
      async () => gate.inUse,
      (n) => n === 1,
      { what: 'the first upload to take the slot' },
    );
    const gone = await RawConnection.open(port);
    const second = multipartUpload(await image('png', 64, 36), suite.org.auth.Authorization);
    await gone.write(second.head);
    await pollUntil(
      async () => gate.waiting,
      (n) => n === 1,
      { what: 'the second upload to wait' },
    );
    gone.destroy();
    await pollUntil(
      async () => gate.waiting,
      (n) => n === 0,
      { timeoutMs: 5000, what: 'the abandoned upload to leave the queue' },
    );
    expect(gate.inUse).toBe(1);
    await holder.write(first.body.subarray(100));
    expect((await holder.response()).status).toBe(201);
    holder.destroy();
    await pollUntil(
      async () => gate.inUse,
      (n) => n === 0,
      { what: 'the slot to be free' },
    );
  });
});

describe('POST /v1/image-assets: a stalled upload', () => {
  const suite = setUpSuite({ api: { config: { UPLOAD_CONCURRENCY: '2', UPLOAD_IDLE_TIMEOUT_SECONDS: '1' } } });
  const port = () => Number(new URL(suite.api.url).port);

  it('an upload whose body stops arriving is answered 408 within its idle timeout and frees its slot', async () => {
    const gate = suite.api.app.get(UploadGate);
    const { head, body } = multipartUpload(await image('png', 320, 180, { noise: true }), suite.org.auth.Authorization);
    const stalled = await RawConnection.open(port());
    await stalled.write(Buffer.concat([Buffer.from(head), body.subarray(0, body.length >> 1)]));
    await pollUntil(
      async () => gate.inUse,
      (n) => n === 1,
      { what: 'the upload to take a slot' },
    );
    const started = Date.now();
    const res = await stalled.response();
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ code: 'request_timeout', requestId: res.headers['x-request-id'] });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(gate.inUse).toBe(0);
    stalled.destroy();
  });
});

describe('POST /v1/image-assets: fairness between organizations', () => {
  const suite = setUpSuite({ api: { config: { UPLOAD_CONCURRENCY: '2' } } });
  const port = () => Number(new URL(suite.api.url).port);

  it("a freed slot goes to another organization's upload before the busy one's next", async () => {
    const gate = suite.api.app.get(UploadGate);
    const other = await createOrganization(suite.api.app);
    const png = await image('png', 320, 180, { noise: true });
    // The first organization takes both idle slots (half sent each), then queues a third upload.
    const mine = [0, 1, 2].map(() => multipartUpload(png, suite.org.auth.Authorization));
    const holding: RawConnection[] = [];
    for (const upload of mine.slice(0, 2)) {
      const conn = await RawConnection.open(port());
      await conn.write(Buffer.concat([Buffer.from(upload.head), upload.body.subarray(0, upload.body.length >> 1)]));
      holding.push(conn);
      await pollUntil(
        async () => gate.inUse,
        (n) => n === holding.length,
        { what: 'the upload to take an idle slot' },
      );
    }
    const third = await RawConnection.open(port());
    await third.write(Buffer.concat([Buffer.from(mine[2].head), mine[2].body]));
    await pollUntil(
      async () => gate.waiting,
      (n) => n === 1,
      { what: 'the third upload to wait' },
    );
    // The other organization's upload queues behind it, also half sent once admitted.
    const theirs = multipartUpload(png, other.auth.Authorization);
    const theirConn = await RawConnection.open(port());
    await theirConn.write(Buffer.concat([Buffer.from(theirs.head), theirs.body.subarray(0, theirs.body.length >> 1)]));
    await pollUntil(
      async () => gate.waiting,
      (n) => n === 2,
      { what: "the other organization's upload to wait" },
    );

    // A slot frees: it goes to the other organization, under its share, not to the older third.
    await holding[0].write(mine[0].body.subarray(mine[0].body.length >> 1));
    expect((await holding[0].response()).status).toBe(201);
    await pollUntil(
      async () => gate.heldBy(other.organizationId),
      (n) => n === 1,
      { what: "the other organization's upload to get the slot" },
    );
    expect({ mine: gate.heldBy(suite.org.organizationId), waiting: gate.waiting }).toEqual({ mine: 1, waiting: 1 });

    await theirConn.write(theirs.body.subarray(theirs.body.length >> 1));
    expect((await theirConn.response()).status).toBe(201);
    await holding[1].write(mine[1].body.subarray(mine[1].body.length >> 1));
    expect((await holding[1].response()).status).toBe(201);
    expect((await third.response()).status).toBe(201);
    for (const conn of [...holding, third, theirConn]) conn.destroy();
  });
});
