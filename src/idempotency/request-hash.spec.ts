import { canonicalJson, hashRequest } from './request-hash';

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('leaves out undefined members, as a DTO field that was not sent', () => {
    expect(canonicalJson({ name: 'Ada', phone: undefined })).toBe('{"name":"Ada"}');
  });

  it('reads class instances by their own fields', () => {
    class Dto {
      name = 'Ada';
      tags: string[] | undefined = undefined;
    }
    expect(canonicalJson(new Dto())).toBe('{"name":"Ada"}');
  });
});

describe('hashRequest', () => {
  const request = { method: 'POST', path: '/api/v1/leads', body: { name: 'Ada', email: 'ada@example.com', tags: ['a', 'b'] } };

  it('is a SHA-256 hex digest', () => {
    expect(hashRequest(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order or the case of the method', () => {
    expect(hashRequest({ method: 'post', path: '/api/v1/leads', body: { tags: ['a', 'b'], email: 'ada@example.com', name: 'Ada' } })).toBe(
      hashRequest(request),
    );
  });

  it.each([
    ['the method', { ...request, method: 'PUT' }],
    ['the path', { ...request, path: '/api/v1/bots' }],
    ['a field', { ...request, body: { ...request.body, name: 'Grace' } }],
    ['an added field', { ...request, body: { ...request.body, company: 'Acme' } }],
    ['the order of an array', { ...request, body: { ...request.body, tags: ['b', 'a'] } }],
    ['a number for a string', { ...request, body: { ...request.body, name: 1 } }],
  ])('changes with %s', (_, other) => {
    expect(hashRequest(other)).not.toBe(hashRequest(request));
  });
});
