import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 27 base62 characters carry 160.7 random bits. */
const RANDOM_LENGTH = 27;
const CHECKSUM_LENGTH = 6;

export const KEY_PREFIX = { secret: 'svc_sk_', public: 'svc_pk_' } as const;
export type KeyType = keyof typeof KEY_PREFIX;

const KEY_PATTERN = new RegExp(`^svc_(sk|pk)_[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniform: bytes >= 248 would bias the low symbols.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** A new key: prefix, 160+ random bits in base62, and a base62 CRC32 of everything before it. */
export function generateApiKey(type: KeyType): string {
  const body = KEY_PREFIX[type] + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/**
 * Whether a presented key is well formed and its checksum matches, so that typos and garbage
 * are rejected without touching the database.
 */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH);
}

export function keyTypeOf(key: string): KeyType {
  return key.startsWith(KEY_PREFIX.public) ? 'public' : 'secret';
}
