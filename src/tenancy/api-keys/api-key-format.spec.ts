import { crc32 } from 'node:zlib';
import { generateApiKey, isWellFormedApiKey, KEY_PREFIX, keyTypeOf } from './api-key-format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Decodes the 6-character base62 checksum independently of the implementation. */
function decodeBase62(text: string): number {
  return [...text].reduce((value, char) => value * 62 + BASE62.indexOf(char), 0);
}

describe('API key format', () => {
  it.each([
    ['secret', /^svc_sk_[0-9A-Za-z]{33}$/],
    ['public', /^svc_pk_[0-9A-Za-z]{33}$/],
  ] as const)('generates %s keys with the prefix, 27 random and 6 checksum base62 characters', (type, pattern) => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey(type);
      expect(key).toMatch(pattern);
      expect(key.startsWith(KEY_PREFIX[type])).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(keyTypeOf(key)).toBe(type);
    }
  });

  it('ends with the base62 CRC32 of everything before it', () => {
    const key = generateApiKey('secret');
    expect(decodeBase62(key.slice(-6))).toBe(crc32(key.slice(0, -6)));
  });

  it('carries at least 160 random bits', () => {
    const randomPart = generateApiKey('secret').slice('svc_sk_'.length, -6);
    expect(randomPart.length * Math.log2(62)).toBeGreaterThanOrEqual(160);
  });

  it('fails the checksum after any single-character change', () => {
    for (let n = 0; n < 10; n++) {
      const key = generateApiKey(n % 2 ? 'public' : 'secret');
      for (let position = 'svc_sk_'.length; position < key.length; position++) {
        for (const replacement of BASE62) {
          if (replacement === key[position]) continue;
          const changed = key.slice(0, position) + replacement + key.slice(position + 1);
          expect(isWellFormedApiKey(changed)).toBe(false);
        }
      }
    }
  });

  it('fails when two neighbouring characters are swapped', () => {
    const key = generateApiKey('secret');
    for (let position = 'svc_sk_'.length; position < key.length - 1; position++) {
      if (key[position] === key[position + 1]) continue;
      const swapped = key.slice(0, position) + key[position + 1] + key[position] + key.slice(position + 2);
      expect(isWellFormedApiKey(swapped)).toBe(false);
    }
  });

  it('rejects a wrong prefix, even with the rest of a valid key', () => {
    const key = generateApiKey('secret');
    const rest = key.slice('svc_sk_'.length);
    for (const prefix of ['svc_pk_', 'svc_xk_', 'SVC_SK_', 'sk_', 'svc_sk', 'svc-sk-', 'xvc_sk_', '']) {
      expect(isWellFormedApiKey(prefix + rest)).toBe(false);
    }
  });

  it('rejects wrong lengths, foreign characters and surrounding whitespace', () => {
    const key = generateApiKey('secret');
    for (const candidate of [
      '',
      key.slice(0, -1),
      `${key}0`,
      ` ${key}`,
      `${key} `,
      `${key}\n`,
      key.replace(/.$/, '-'),
      key.replace(/.$/, 'é'),
      key.toUpperCase(),
    ]) {
      expect(isWellFormedApiKey(candidate)).toBe(false);
    }
  });

  it('generates unique keys using the whole alphabet', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => generateApiKey(i % 2 ? 'public' : 'secret'));
    expect(new Set(keys).size).toBe(keys.length);
    const randomChars = new Set(keys.flatMap((key) => [...key.slice(7, -6)]));
    expect(randomChars).toEqual(new Set(BASE62));
  });

  it('spreads the random characters evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      for (const char of generateApiKey('secret').slice(7, -6)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    const expected = (20_000 * 27) / 62;
    for (const char of BASE62) {
      expect(Math.abs((counts.get(char) ?? 0) - expected) / expected).toBeLessThan(0.1);
    }
  });

  it('tells the type from the prefix', () => {
    expect(keyTypeOf('svc_pk_anything')).toBe('public');
    expect(keyTypeOf('svc_sk_anything')).toBe('secret');
  });
});
