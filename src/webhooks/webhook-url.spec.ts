import { allowedRanges, webhookUrlProblem } from './webhook-url';

describe('webhookUrlProblem', () => {
  const none = allowedRanges([]);
  const loopback = allowedRanges(['127.0.0.1/32']);

  it.each(['https://hooks.example.com/in', 'https://8.8.8.8:8443/x', 'https://[2606:4700::1111]/x'])('accepts %s', (url) => {
    expect(webhookUrlProblem(url, none)).toBeUndefined();
  });

  it.each([
    ['http://hooks.example.com/in', 'must be an absolute https URL'],
    ['/relative', 'must be an absolute https URL'],
    ['ftp://hooks.example.com/in', 'must be an absolute https URL'],
    ['https://user:pw@hooks.example.com/in', 'must not contain a user name or password'],
    ['https://127.0.0.1/in', 'must not point to a private, loopback, link-local or reserved address'],
    ['https://10.0.0.1/in', 'must not point to a private, loopback, link-local or reserved address'],
    ['https://169.254.169.254/latest', 'must not point to a private, loopback, link-local or reserved address'],
    ['https://[::1]/in', 'must not point to a private, loopback, link-local or reserved address'],
    ['https://localhost/in', 'must not point to a private, loopback, link-local or reserved address'],
    [`https://example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses %s: %s', (url, problem) => {
    expect(webhookUrlProblem(url, none)).toBe(problem);
  });

  it('lets WEBHOOK_ALLOWED_CIDRS open a range, over http too, and nothing else', () => {
    expect(webhookUrlProblem('http://127.0.0.1:4000/in', loopback)).toBeUndefined();
    expect(webhookUrlProblem('https://localhost:4000/in', loopback)).toBeUndefined();
    expect(webhookUrlProblem('http://10.0.0.1/in', loopback)).toBe('must not point to a private, loopback, link-local or reserved address');
    expect(webhookUrlProblem('http://hooks.example.com/in', loopback)).toBe('must be an absolute https URL');
  });
});
