import { compile } from 'proxy-addr';
import { trustedProxies } from './trusted-proxies';

describe('trustedProxies', () => {
  it('passes true and false through to Express', () => {
    expect(trustedProxies(true)).toBe(true);
    expect(trustedProxies(false)).toBe(false);
  });

  it("answers as proxy-addr's compiled list does, on first and repeated asks", () => {
    const setting = 'loopback, 10.0.0.0/8 ,fd00::/8';
    const expected = compile(setting.split(',').map((entry) => entry.trim()));
    const trust = trustedProxies(setting) as (address: string, hop: number) => boolean;
    const addresses = ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '::ffff:10.1.2.3', '11.0.0.1', 'fd00::1', 'fe80::1', '203.0.113.9', 'not-an-ip'];
    for (let round = 0; round < 2; round++) {
      for (const address of addresses) expect([address, trust(address, round)]).toEqual([address, expected(address, round)]);
    }
  });

  it('stays correct once more addresses than it remembers have been seen', () => {
    const trust = trustedProxies('10.0.0.0/8') as (address: string, hop: number) => boolean;
    for (let i = 0; i < 2_500; i++) expect(trust(`10.0.${i >> 8}.${i & 255}`, 1)).toBe(true);
    for (let i = 0; i < 2_500; i++) expect(trust(`192.0.${i >> 8}.${i & 255}`, 1)).toBe(false);
    expect(trust('10.9.9.9', 0)).toBe(true);
  });
});
