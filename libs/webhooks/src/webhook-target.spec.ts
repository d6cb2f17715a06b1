import { HostResolutionError, HostResolver, loadConfig } from '@app/core';
import { FakeDnsServer } from '@app/core/testing';
import { parseTargetUrl, TargetRefused, WebhookTargets } from './webhook-target';

describe(parseTargetUrl.name, () => {
  it.each([
    ['http://hooks.example.com/x', false, 'https://'],
    ['https://user:pw@hooks.example.com/x', false, 'credentials'],
    ['https://hooks.example.com/x#frag', false, 'fragment'],
    ['ftp://hooks.example.com/x', false, 'https://'],
    ['not a url', false, 'absolute'],
    ['http://localhost:8080/x', false, 'https://'],
    ['http://localhost/x', true, 'localhost:<port>'],
    ['http://127.0.0.1:8080/x', true, 'localhost:<port>'],
  ])('refuses %s (test organization: %s)', (url, allowLoopback, message) => {
    expect(() => parseTargetUrl(url, allowLoopback)).toThrow(TargetRefused);
    expect(() => parseTargetUrl(url, allowLoopback)).toThrow(message);
  });

  it('accepts https on any host, and a test organization’s http://localhost:<port>', () => {
    expect(parseTargetUrl('https://hooks.example.com/in?a=1', false).href).toBe('https://hooks.example.com/in?a=1');
    expect(parseTargetUrl('http://localhost:4567/hooks', true).port).toBe('4567');
  });
});

describe(WebhookTargets.name, () => {
  let dns: FakeDnsServer;
  /** name → the addresses the fake DNS server answers with. */
  let zone: Record<string, string[]>;

  const targets = (env: Record<string, string> = {}) => {
    const config = loadConfig({ NODE_ENV: 'test', ...env }, {});
    return new WebhookTargets(new HostResolver({ servers: [dns.server], timeoutMs: 400 }), config);
  };
  let sut: WebhookTargets;

  beforeAll(async () => {
    dns = await FakeDnsServer.start();
  });
  afterAll(() => dns.close());
  beforeEach(() => {
    zone = {};
    dns.answer = (name) => (zone[name] ? { addresses: zone[name] } : 'nxdomain');
    dns.queries.length = 0;
    sut = targets();
  });

  it('accepts a name whose every address is public, and returns them to connect to', async () => {
    zone['hooks.partner.example'] = ['93.184.215.14'];
    const { url, addresses } = await sut.check('https://hooks.partner.example/in', false);
    expect(url.href).toBe('https://hooks.partner.example/in');
    expect(addresses).toEqual(['93.184.215.14']);
  });

  it('refuses a name with any private address among public ones, and IP literals in private ranges', async () => {
    zone['mixed.partner.example'] = ['93.184.215.14', '10.1.2.3'];
    zone['metadata.partner.example'] = ['169.254.169.254'];
    zone['v6.partner.example'] = ['fd00::7'];
    for (const url of [
      'https://mixed.partner.example/',
      'https://metadata.partner.example/',
      'https://v6.partner.example/',
      'https://[::1]/',
      'https://192.168.0.10/',
    ]) {
      await expect(sut.check(url, false)).rejects.toThrow('public address');
    }
    await expect(sut.check('https://missing.partner.example/', false)).rejects.toThrow(new TargetRefused('url host does not resolve'));
  });

  it('answers a DNS server that never answers with a transient error within its timeout, not a refusal', async () => {
    dns.answer = () => 'silence';
    const started = performance.now();
    const error = await sut.check('https://silent.partner.example/', false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostResolutionError);
    expect(error).toMatchObject({ reason: 'timeout', transient: true });
    expect(performance.now() - started).toBeLessThan(1500);
    // A shorter deadline of the caller wins.
    const deadline = AbortSignal.timeout(50);
    await expect(sut.check('https://silent.partner.example/', false, deadline)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('lets a test organization’s http://localhost:<port> reach loopback only, without asking DNS', async () => {
    await expect(sut.check('http://localhost:4567/', true)).resolves.toMatchObject({ addresses: ['127.0.0.1', '::1'] });
    // A live organization's https URL on localhost is judged like any host: loopback is refused.
    await expect(sut.check('https://localhost:4567/', true)).rejects.toThrow('public address');
    zone['loopback.partner.example'] = ['127.0.0.1'];
    await expect(sut.check('https://loopback.partner.example/', true)).rejects.toThrow('public address');
    expect(dns.queriesFor('localhost')).toEqual([]);
  });

  it('refuses localhost on a port of this service’s own processes', async () => {
    const own = targets({ API_PORT: '7100', STUDIO_PORT: '7101', WORKER_PORT: '7102', API_OPS_PORT: '7103', STUDIO_OPS_PORT: '7104' });
    for (const port of [7100, 7101, 7102, 7103, 7104]) {
      await expect(own.check(`http://localhost:${port}/hooks`, true)).rejects.toThrow('port of this service');
    }
    await expect(own.check('http://localhost:7105/hooks', true)).resolves.toBeDefined();
  });

  it('refuses localhost in production unless WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    await expect(targets(production).check('http://localhost:4567/', true)).rejects.toThrow('not enabled');
    await expect(targets({ ...production, WEBHOOK_ALLOW_LOOPBACK: 'true' }).check('http://localhost:4567/', true)).resolves.toBeDefined();
    await expect(targets({ NODE_ENV: 'development' }).check('http://localhost:4567/', true)).resolves.toBeDefined();
  });
});
