import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

/** A Standard Webhooks sender, as any provider built on the reference library signs. */
function signed(secret: string, body: string, { id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', at = new Date() } = {}) {
  const signature = new Webhook(secret).sign(id, at, body);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe(verifyWebhook.name, () => {
  const secret = newSecret();
  const body = JSON.stringify({
    type: 'operation.succeeded',
    timestamp: '2026-11-25T03:00:00.000Z',
    data: { operationId: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE', status: 'succeeded' },
  });

  it('returns the parsed event, its id and send time for a body signed with the secret', () => {
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const sut = verifyWebhook(body, signed(secret, body, { at }), secret);
    expect(sut).toEqual({ webhookId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', sentAt: at, event: JSON.parse(body) });
  });

  it('accepts the raw body as a Buffer, a Uint8Array view, and fetch Headers', () => {
    const headers = signed(secret, body);
    const buffer = Buffer.from(body);
    // A view into a larger buffer: only its own bytes are the body.
    const padded = Buffer.concat([Buffer.from('xx'), buffer, Buffer.from('yy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, buffer.length);
    expect(verifyWebhook(buffer, headers, secret).event).toEqual(JSON.parse(body));
    expect(verifyWebhook(view, new Headers(headers), secret).event).toEqual(JSON.parse(body));
  });

  it('reads header names in any case, as node:http or a proxy may pass them', () => {
    const h = signed(secret, body);
    const upper = {
      'Webhook-Id': h['webhook-id'],
      'WEBHOOK-TIMESTAMP': h['webhook-timestamp'],
      'Webhook-Signature': h['webhook-signature'],
    };
    expect(verifyWebhook(body, upper, secret).webhookId).toBe(h['webhook-id']);
  });

  it('rejects a changed body, another secret, a changed id, and a missing header', () => {
    const headers = signed(secret, body);
    expect(() => verifyWebhook(body.replace('succeeded', 'failed'), headers, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, newSecret())).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, secret)).toThrow('Missing required headers');
  });

  it('rejects a timestamp more than five minutes old or ahead (a replay)', () => {
    const old = signed(secret, body, { at: new Date(Date.now() - 6 * 60_000) });
    const ahead = signed(secret, body, { at: new Date(Date.now() + 6 * 60_000) });
    expect(() => verifyWebhook(body, old, secret)).toThrow('Message timestamp too old');
    expect(() => verifyWebhook(body, ahead, secret)).toThrow('Message timestamp too new');
  });

  it('accepts any one of several signatures, and any one of several secrets during a rotation', () => {
    const other = newSecret();
    const headers = signed(secret, body);
    const twoSignatures = { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}` };
    expect(verifyWebhook(body, twoSignatures, secret).event).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, headers, [other, secret]).event).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(body, headers, [other])).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, [])).toThrow(TypeError);
  });

  it('verifies a delivery as a node:http endpoint receives it: req.headers and the raw body', async () => {
    const results: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          results.push(verifyWebhook(Buffer.concat(chunks), req.headers, secret).event.type);
          res.writeHead(204).end();
        } catch (e) {
          results.push((e as Error).message);
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const good = await fetch(url, { method: 'POST', headers: signed(secret, body), body });
      const tampered = await fetch(url, { method: 'POST', headers: signed(secret, body), body: body.replace('op_', 'op-') });
      expect([good.status, tampered.status]).toEqual([204, 400]);
      expect(results).toEqual(['operation.succeeded', 'No matching signature found']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
