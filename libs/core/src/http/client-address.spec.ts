import { normalizeClientAddress } from './client-address';

describe(normalizeClientAddress.name, () => {
  it('keeps IPv4 addresses, and IPv4-mapped IPv6 ones as IPv4', () => {
    expect(normalizeClientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(normalizeClientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(normalizeClientAddress('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts IPv6 by its /64, however the address is written', () => {
    const a = normalizeClientAddress('2001:db8:abcd:12::1');
    expect(a).toBe('2001:db8:abcd:12::/64');
    expect(normalizeClientAddress('2001:0db8:abcd:0012:ffff:ffff:ffff:ffff')).toBe(a);
    expect(normalizeClientAddress('2001:db8:abcd:12:1:2:3:4%eth0')).toBe(a);
    expect(normalizeClientAddress('2001:db8:abcd:13::1')).not.toBe(a);
    expect(normalizeClientAddress('::1')).toBe('0:0:0:0::/64');
    expect(normalizeClientAddress('64:ff9b::198.51.100.1')).toBe('64:ff9b:0:0::/64');
  });

  it('names anything else one unknown client', () => {
    expect(normalizeClientAddress('')).toBe('unknown');
    expect(normalizeClientAddress('not an address')).toBe('unknown');
  });
});
