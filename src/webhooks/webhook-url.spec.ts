import { ADDRESS_REFUSED, allowedRanges, isDeliverableAddress, webhookUrlProblem } from './webhook-url';

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
    ['https://127.0.0.1/in', ADDRESS_REFUSED],
    ['https://10.0.0.1/in', ADDRESS_REFUSED],
    ['https://169.254.169.254/latest', ADDRESS_REFUSED],
    ['https://[::1]/in', ADDRESS_REFUSED],
    ['https://localhost/in', ADDRESS_REFUSED],
    ['https://[::127.0.0.1]/in', ADDRESS_REFUSED],
    ['https://[::ffff:127.0.0.1]/in', ADDRESS_REFUSED],
    ['https://[0:0:0:0:0:ffff:7f00:1]/in', ADDRESS_REFUSED],
    ['https://[::ffff:0:7f00:1]/in', ADDRESS_REFUSED],
    ['https://[::a9fe:a9fe]/latest', ADDRESS_REFUSED],
    ['https://[2002:7f00:1::]/in', ADDRESS_REFUSED],
    ['https://[64:ff9b::808:808]/in', ADDRESS_REFUSED],
    ['https://0x7f.1/in', ADDRESS_REFUSED],
    ['https://hooks.example.com/a\r\nX-Injected: 1', 'must not contain control characters (such as CR or LF)'],
    ['https://hooks.example.com/a\tb', 'must not contain control characters (such as CR or LF)'],
    ['https://hooks.example.com/a\u0000b', 'must not contain control characters (such as CR or LF)'],
    [`https://example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses %s: %s', (url, problem) => {
    expect(webhookUrlProblem(url, none)).toBe(problem);
  });

  it('lets WEBHOOK_ALLOWED_CIDRS open a range, over http too, and nothing else', () => {
    expect(webhookUrlProblem('http://127.0.0.1:4000/in', loopback)).toBeUndefined();
    expect(webhookUrlProblem('https://localhost:4000/in', loopback)).toBeUndefined();
    expect(webhookUrlProblem('http://10.0.0.1/in', loopback)).toBe(ADDRESS_REFUSED);
    expect(webhookUrlProblem('http://hooks.example.com/in', loopback)).toBe('must be an absolute https URL');
  });

  it('names WEBHOOK_ALLOWED_CIDRS when it refuses an address', () => {
    expect(webhookUrlProblem('https://127.0.0.1:4000/in', none)).toContain('WEBHOOK_ALLOWED_CIDRS');
  });

  it('applies the same rule to the address a delivery connects to', () => {
    expect(['8.8.8.8', '2606:4700::1111', '127.0.0.1'].map((address) => isDeliverableAddress(address, loopback))).toEqual([true, true, true]);
    expect(['127.0.0.2', '::1', '::7f00:1', '::ffff:a9fe:a9fe', '10.0.0.1'].map((address) => isDeliverableAddress(address, loopback))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
