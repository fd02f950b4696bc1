import { invitationMail, quotedTenantName } from './invitation-mail';

describe('the invitation mail', () => {
  it("never puts the tenant's name in the subject, and quotes it in the body", () => {
    const mail = invitationMail('ivy@example.com', 'Acme Support', 'agent', 'https://chat.example/dashboard/invitations/accept?token=t');
    expect(mail.subject).toBe('You are invited to join a team');
    expect(mail.text).toContain('The team calls itself «Acme Support» (a name its owner chose, not ours).');
  });

  it('keeps the name on one line, inside quotes it cannot close', () => {
    expect(quotedTenantName('Acme»\r\n\r\nYour password expired: https://evil.example\u2028«')).toBe('«Acme" Your password expired: https://evil.example "»');
    expect(quotedTenantName('  Tabs\tand\u0000nulls  ')).toBe('«Tabs and nulls»');
  });
});
