import { addressRange, isLoopbackAddress, isPublicAddress } from './address-range';

describe(isPublicAddress.name, () => {
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
    ['::', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fd00:ec2::254', false],
    ['224.0.0.1', false],
    ['192.0.2.10', false],
    ['4000::1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

/**
 * Every IPv6 form that embeds an IPv4 address, each with the addresses a request forgery aims at
 * (loopback, link-local where cloud metadata lives, private) and a public one: refused unless the
 * form leads to a public address, as `range` names why.
 */
describe('IPv6 forms that embed an IPv4 address', () => {
  it.each([
    // IPv4-mapped (::ffff:0:0/96): judged as the IPv4 address, in either spelling.
    ['IPv4-mapped', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped', '::ffff:7f00:1', 'loopback'],
    ['IPv4-mapped', '::ffff:169.254.169.254', 'linkLocal'],
    ['IPv4-mapped', '::ffff:10.0.0.1', 'private'],
    ['IPv4-mapped', '::ffff:c0a8:101', 'private'],
    ['IPv4-mapped', '::ffff:93.184.215.14', 'unicast'],
    // IPv4-compatible (::/96, deprecated): no route leads there but an old tunnel; all refused.
    ['IPv4-compatible', '::7f00:1', 'reserved'],
    ['IPv4-compatible', '::127.0.0.1', 'reserved'],
    ['IPv4-compatible', '::a9fe:a9fe', 'reserved'],
    ['IPv4-compatible', '::10.0.0.1', 'reserved'],
    ['IPv4-compatible', '::c0a8:101', 'reserved'],
    ['IPv4-compatible', '::5db8:d70e', 'reserved'],
    ['IPv4-compatible', '::93.184.215.14', 'reserved'],
    // IPv4-translated (::ffff:0:0:0/96, SIIT): all refused.
    ['IPv4-translated', '::ffff:0:127.0.0.1', 'rfc6145'],
    ['IPv4-translated', '::ffff:0:93.184.215.14', 'rfc6145'],
    // NAT64, well-known prefix (64:ff9b::/96): judged as the IPv4 address the translator reaches.
    ['NAT64', '64:ff9b::7f00:1', 'rfc6052'],
    ['NAT64', '64:ff9b::169.254.169.254', 'rfc6052'],
    ['NAT64', '64:ff9b::a00:1', 'rfc6052'],
    ['NAT64', '64:ff9b::192.168.1.1', 'rfc6052'],
    ['NAT64', '64:ff9b::100.64.0.1', 'rfc6052'],
    ['NAT64', '64:ff9b::5db8:d70e', 'unicast'],
    // NAT64, local-use prefix (64:ff9b:1::/48): where the IPv4 address sits is each network's choice; all refused.
    ['NAT64 local-use', '64:ff9b:1::7f00:1', 'rfc6052'],
    ['NAT64 local-use', '64:ff9b:1:a9fe:a9fe::', 'rfc6052'],
    ['NAT64 local-use', '64:ff9b:1::5db8:d70e', 'rfc6052'],
    // 6to4 (2002:V4ADDR::/48): a relay tunnels to the IPv4 address in bits 16-47; all refused.
    ['6to4', '2002:7f00:1::1', '6to4'],
    ['6to4', '2002:a9fe:a9fe::1', '6to4'],
    ['6to4', '2002:a00:1::1', '6to4'],
    ['6to4', '2002:5db8:d70e::1', '6to4'],
    // Teredo (2001::/32): the server's IPv4 address, then the client's, bits inverted; all refused.
    ['Teredo', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:5601:5601', 'teredo'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo'],
    ['Teredo', '2001:0:a00:1:8000:63bf:a247:28f1', 'teredo'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:a247:28f1', 'teredo'],
    // ISATAP interface ids (RFC 5214) in a global prefix: refused when the IPv4 address is not public.
    ['ISATAP', '2a00:1450:4001:81c:0:5efe:7f00:1', 'isatap'],
    ['ISATAP', '2a00:1450:4001:81c:200:5efe:a9fe:a9fe', 'isatap'],
    ['ISATAP', '2a00:1450:4001:81c:0:5efe:10.0.0.1', 'isatap'],
    ['ISATAP', '2a00:1450:4001:81c:300:5efe:c0a8:101', 'isatap'],
    ['ISATAP', '2a00:1450:4001:81c:200:5efe:5db8:d70e', 'unicast'],
    // Embedded spellings outside 2000::/3 other than those: reserved.
    ['other, in ::/8', '::1:7f00:1', 'reserved'],
    ['other, in ::/8', '::a9fe:a9fe:0:0', 'reserved'],
  ])('%s %s: %s', (_form, address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(range === 'unicast');
    // Only the loopback address itself, or an IPv4-mapped one, is loopback (a test organization's localhost).
    expect(isLoopbackAddress(address)).toBe(range === 'loopback');
  });
});

describe(isLoopbackAddress.name, () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::7f00:1', false],
    ['64:ff9b::7f00:1', false],
    ['10.0.0.1', false],
    ['93.184.215.14', false],
    ['localhost', false],
  ])('%s is loopback: %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});
