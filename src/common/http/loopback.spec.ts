import { isLoopbackAddress, isLoopbackHost } from './loopback';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'localhost:3000', 'LOCALHOST:3000', 'app.localhost', '127.0.0.1', '127.0.0.1:8080', '127.1.2.3', '[::1]', '[::1]:3000'])(
    'takes %s for this machine',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each([
    undefined,
    '',
    'evil.example',
    'localhost.evil.example',
    '127.0.0.1.evil.example',
    'evil.example:3000',
    'localhost@evil.example',
    'localhost/evil.example',
    '10.0.0.1',
    '[::2]',
    '0.0.0.0',
  ])('does not take %s for this machine', (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['::ffff:127.0.0.1', true],
    ['::1', true],
    ['10.0.0.1', false],
    [undefined, false],
  ])('%s -> %s', (address, expected) => expect(isLoopbackAddress(address)).toBe(expected));
});
