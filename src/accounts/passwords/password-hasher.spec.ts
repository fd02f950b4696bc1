import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  it('hashes and verifies; an unknown user (no stored hash) never matches', async () => {
    const hasher = new PasswordHasher();
    const stored = await hasher.hash('a fine passphrase');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(hasher.verifyLogIn(stored, 'a fine passphrase')).resolves.toBe(true);
    await expect(hasher.verifyLogIn(stored, 'another')).resolves.toBe(false);
    await expect(hasher.verifyLogIn(undefined, 'a fine passphrase')).resolves.toBe(false);
    await expect(hasher.verify(stored, 'a fine passphrase')).resolves.toBe(true);
    await expect(hasher.verify(undefined, 'a fine passphrase')).resolves.toBe(false);
  });

  it('gives log-ins a budget of their own: a log-in is compared while new passwords wait in their queue', async () => {
    const hasher = new PasswordHasher();
    const stored = await hasher.hash('a fine passphrase');
    let hashed = 0;
    const hashes = Array.from({ length: 6 }, () => hasher.hash('another passphrase').then(() => hashed++));
    await expect(hasher.verifyLogIn(stored, 'a fine passphrase')).resolves.toBe(true);
    // The new passwords' one slot has done at most a few of them by then.
    expect(hashed).toBeLessThan(6);
    await Promise.all(hashes);
  });
});
