import { passwordProblem } from './password-rules';

describe('passwordProblem', () => {
  it('refuses common passwords, whatever their case', async () => {
    expect(await passwordProblem('password12', 'bob@example.com')).toBe('is among the most common passwords: choose another');
    expect(await passwordProblem('PassWord12', 'bob@example.com')).toBe('is among the most common passwords: choose another');
    expect(await passwordProblem('qwertyuiop', 'bob@example.com')).toBeDefined();
  });

  it("refuses a password holding the e-mail's local part, whatever its case", async () => {
    expect(await passwordProblem('alice-secret-pw', 'alice@example.com')).toBe('must not contain your e-mail address');
    expect(await passwordProblem('my ALICE secret', ' Alice@Example.com ')).toBeDefined();
    expect(await passwordProblem('x.y+alice.smith!!', 'alice.smith@example.com')).toBeDefined();
  });

  it('ignores local parts shorter than 3 characters, and accepts ordinary passphrases', async () => {
    expect(await passwordProblem('al bundy is here', 'al@example.com')).toBeUndefined();
    expect(await passwordProblem('correct horse battery', 'alice@example.com')).toBeUndefined();
  });
});
