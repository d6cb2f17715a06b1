import { isPublicAddress, parseTargetUrl, resolveTarget, TargetRefused } from './webhook-target';

const lookupTo =
  (...addresses: string[]) =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('webhook targets', () => {
  it.each([
    ['93.184.215.14', true],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', true],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:93.184.215.14', true],
    ['224.0.0.1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

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

  it('refuses a name with any private address among public ones, and IP literals in private ranges', async () => {
    const url = new URL('https://hooks.example.com/');
    await expect(resolveTarget(url, false, lookupTo('93.184.215.14'))).resolves.toEqual(['93.184.215.14']);
    await expect(resolveTarget(url, false, lookupTo('93.184.215.14', '10.1.2.3'))).rejects.toThrow('public address');
    await expect(resolveTarget(url, false, lookupTo('169.254.169.254'))).rejects.toThrow('public address');
    await expect(resolveTarget(new URL('https://[::1]/'), false)).rejects.toThrow('public address');
    await expect(resolveTarget(new URL('https://192.168.0.10/'), false)).rejects.toThrow('public address');
    await expect(resolveTarget(url, false, () => Promise.reject(new Error('ENOTFOUND')))).rejects.toThrow('does not resolve');
  });

  it('lets a test organization’s localhost reach loopback only', async () => {
    const url = new URL('http://localhost:4567/');
    await expect(resolveTarget(url, true, lookupTo('127.0.0.1', '::1'))).resolves.toEqual(['127.0.0.1', '::1']);
    await expect(resolveTarget(url, true, lookupTo('10.0.0.8'))).rejects.toThrow('public address');
    // A live organization's https URL on localhost is judged like any host: loopback is refused.
    await expect(resolveTarget(new URL('https://localhost:4567/'), true, lookupTo('127.0.0.1'))).rejects.toThrow('public address');
  });
});
