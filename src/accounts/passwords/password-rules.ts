import { ValidationError } from '../../common/errors/app-error';

/** Local parts shorter than this (`al@…`) are ignored: too many passwords would contain them by chance. */
const MIN_LOCAL_PART = 3;

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/**
 * zxcvbn's list of 49,233 common passwords, lower-cased: loaded on the first password set (not at
 * start, and not by processes that never set one), then kept.
 */
function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase())),
  );
  return commonPasswords;
}

/**
 * What is wrong with a password a person chose (API_DECISIONS part 4, Fixes to part 3): among
 * common passwords, or containing the e-mail's local part, both case-insensitive. Undefined when
 * it is acceptable. Length is the DTOs' rule.
 */
export async function passwordProblem(password: string, email: string): Promise<string | undefined> {
  const lowered = password.toLowerCase();
  if ((await loadCommonPasswords()).has(lowered)) return 'is among the most common passwords: choose another';
  const localPart = email.trim().slice(0, email.trim().lastIndexOf('@')).toLowerCase();
  if (localPart.length >= MIN_LOCAL_PART && lowered.includes(localPart)) return 'must not contain your e-mail address';
  return undefined;
}

/** 400 VALIDATION_ERROR on `password` when passwordProblem finds one. */
export async function assertAcceptablePassword(password: string, email: string): Promise<void> {
  const problem = await passwordProblem(password, email);
  if (problem) throw ValidationError.field('password', problem);
}
