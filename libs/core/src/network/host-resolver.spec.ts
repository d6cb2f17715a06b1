import { FakeDnsServer } from '../testing/fake-dns-server';
import { HostResolutionError, HostResolver } from './host-resolver';

describe(HostResolver.name, () => {
  let dns: FakeDnsServer;
  let sut: HostResolver;

  beforeAll(async () => {
    dns = await FakeDnsServer.start();
    sut = new HostResolver({ servers: [dns.server], timeoutMs: 600 });
  });
  afterAll(() => dns.close());
  beforeEach(() => {
    dns.answer = () => 'nxdomain';
    dns.queries.length = 0;
  });

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('resolved');
      },
      (e: unknown) => e,
    );

  it('asks the configured server for A and AAAA records and returns both families', async () => {
    dns.answer = (name) =>
      name === 'hooks.partner.example' ? { addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] } : 'nxdomain';
    expect((await sut.resolve('Hooks.Partner.Example.')).sort()).toEqual(['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14']);
    expect(
      dns
        .queriesFor('hooks.partner.example')
        .map((q) => q.type)
        .sort(),
    ).toEqual(['A', 'AAAA']);
  });

  it('answers IP literals and localhost (RFC 6761) without asking DNS', async () => {
    expect(await sut.resolve('10.1.2.3')).toEqual(['10.1.2.3']);
    expect(await sut.resolve('[::1]')).toEqual(['::1']);
    expect(await sut.resolve('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(await sut.resolve('api.localhost')).toEqual(['127.0.0.1', '::1']);
    expect(dns.queries).toEqual([]);
  });

  it('tells a name that does not exist (for good) from a server that fails (for now)', async () => {
    const missing = await failure(sut.resolve('nothing.partner.example'));
    expect(missing).toBeInstanceOf(HostResolutionError);
    expect(missing).toMatchObject({ reason: 'not_found', transient: false });
    dns.answer = () => 'servfail';
    expect(await failure(sut.resolve('broken.partner.example'))).toMatchObject({ reason: 'failed', transient: true });
  });

  it('gives up on a server that never answers within its timeout', async () => {
    dns.answer = () => 'silence';
    const started = performance.now();
    const error = await failure(sut.resolve('silent.partner.example'));
    const took = performance.now() - started;
    expect(error).toMatchObject({ reason: 'timeout', transient: true });
    // c-ares's own retries may end a little before the budget, never well after it.
    expect(took).toBeGreaterThanOrEqual(100);
    expect(took).toBeLessThan(1500);
    expect(dns.queriesFor('silent.partner.example').length).toBeGreaterThan(0);
  });

  it('keeps what one family answered when the other never comes', async () => {
    dns.answer = (_, type) => (type === 'A' ? { addresses: ['93.184.215.14'] } : 'silence');
    expect(await sut.resolve('half.partner.example')).toEqual(['93.184.215.14']);
  });

  it('stops when the caller’s signal aborts, with its reason', async () => {
    dns.answer = () => 'silence';
    const reason = new Error('the delivery’s deadline');
    const error = await failure(sut.resolve('silent.partner.example', AbortSignal.timeout(100)));
    expect((error as Error).name).toBe('TimeoutError');
    const controller = new AbortController();
    controller.abort(reason);
    expect(await failure(sut.resolve('silent.partner.example', controller.signal))).toBe(reason);
  });
});
