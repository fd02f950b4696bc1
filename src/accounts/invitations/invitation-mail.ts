import type { Mail } from '../../mail/mailer';

/**
 * A tenant's name as the mail shows it: on one line (no line breaks or control characters to fake
 * a paragraph of the service's own), inside «» that the name itself cannot close.
 */
export function quotedTenantName(name: string): string {
  const oneLine = name
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/[«»]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
  return `«${oneLine}»`;
}

/**
 * The invitation mail. Anyone may sign up and name a tenant anything, so the name is the tenant's
 * own words, never the service's: it stays out of the subject (the one line a phisher would write)
 * and is quoted in the body, said to be chosen by the tenant.
 */
export function invitationMail(to: string, tenantName: string, role: string, acceptUrl: string): Mail {
  return {
    to,
    subject: 'You are invited to join a team',
    text:
      `You have been invited to join a team as ${role}. The team calls itself ${quotedTenantName(tenantName)} ` +
      `(a name its owner chose, not ours).\n\nAccept within 7 days: ${acceptUrl}\n\nIf you did not expect this invitation, ignore this mail.\n`,
  };
}
