import { limitKeyOf } from './client-ip';

describe('limitKeyOf', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('counts %s as %s', (address, key) => {
    expect(limitKeyOf(address)).toBe(key);
  });

  it('gives every address of one /64 the same key, and the next /64 another', () => {
    expect(limitKeyOf('2001:db8:aa:bb:1::1')).toBe(limitKeyOf('2001:db8:aa:bb:ffff:1:2:3'));
    expect(limitKeyOf('2001:db8:aa:bb::1')).not.toBe(limitKeyOf('2001:db8:aa:bc::1'));
  });
});
