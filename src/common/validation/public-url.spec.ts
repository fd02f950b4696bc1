import { isPublicAddress, publicHttpsUrlProblem } from './public-url';

describe('public https URLs', () => {
  it.each([
    'https://cdn.example.com/bot.png',
    'https://example.com:8443/a?b=c#d',
    'https://8.8.8.8/x.png',
    'https://[2606:4700:4700::1111]/x.png',
    'https://xn--bcher-kva.example/',
  ])('accepts %s', (url) => {
    expect(publicHttpsUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ['http://cdn.example.com/a.png', 'must be an https URL'],
    ['ftp://example.com/a.png', 'must be an https URL'],
    ['not a url', 'must be an https URL'],
    ['https://user:secret@example.com/a.png', 'must not contain a user name or password'],
    ['https://user@example.com/a.png', 'must not contain a user name or password'],
    ['https://localhost/a.png', 'must not point to localhost'],
    ['https://LOCALHOST./a.png', 'must not point to localhost'],
    ['https://api.localhost/a.png', 'must not point to localhost'],
  ])('refuses %s: %s', (url, problem) => {
    expect(publicHttpsUrlProblem(url)).toBe(problem);
  });

  it.each([
    'https://127.0.0.1/',
    'https://127.1.2.3/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[fe80::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::127.0.0.1]/',
    'https://[::7f00:1]/',
    'https://[::ffff:0:7f00:1]/',
    'https://[2002:7f00:1::]/',
    'https://[64:ff9b:1::a00:1]/',
  ])('refuses the non-public address in %s', (url) => {
    expect(publicHttpsUrlProblem(url)).toBe('must not point to a private, loopback, link-local or reserved address');
  });

  it('tells public from other addresses', () => {
    expect(['1.1.1.1', '172.32.0.1', '2606:4700::1111'].map(isPublicAddress)).toEqual([true, true, true]);
    expect(['172.15.255.255', '192.169.0.1'].map(isPublicAddress)).toEqual([true, true]);
    expect(['127.0.0.1', '::1', 'fe80::1', 'not-an-ip'].map(isPublicAddress)).toEqual([false, false, false, false]);
  });

  it('refuses every IPv6 form that embeds an IPv4 address, and no IPv4 address for it', () => {
    expect(
      ['::7f00:1', '::808:808', '::ffff:808:808', '::ffff:0:808:808', '64:ff9b::808:808', '2001:0:4136:e378::1', '2002:808:808::1'].map(isPublicAddress),
    ).toEqual(Array(7).fill(false));
    expect(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888'].map(isPublicAddress)).toEqual([true, true, true]);
  });
});
