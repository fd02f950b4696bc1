import { loggablePath } from './request-log.middleware';

describe('loggablePath', () => {
  it.each([
    ['/api/v1/leads?search=x', '/api/v1/leads'],
    ['/api/v1/leads', '/api/v1/leads'],
    ['http://user:secret@example.com/api/v1/bots?x=1', '/api/v1/bots'],
    ['https://svc_sk_abc@example.com:8443/admin/v1/tenants', '/admin/v1/tenants'],
    ['http://user:pass@', '(unparseable request target)'],
    ['*', '(unparseable request target)'],
    ['user:secret@host/x', '(unparseable request target)'],
  ])('logs %s as %s, never its userinfo', (target, expected) => {
    expect(loggablePath(target)).toBe(expected);
    expect(loggablePath(target)).not.toMatch(/secret|pass|svc_sk_/);
  });
});
