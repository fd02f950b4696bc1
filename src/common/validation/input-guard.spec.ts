import { inspectInput, MAX_INPUT_DEPTH } from './input-guard';

describe('inspectInput', () => {
  it('accepts ordinary input', () => {
    expect(inspectInput({ name: 'Zoë 😀', tags: ['a', 'b'], nested: { deep: [1, { x: 'y' }] } }, '')).toEqual([]);
  });

  it('names NUL characters and lone surrogates by field', () => {
    expect(inspectInput({ name: 'a\u0000b', tags: ['ok', '\ud800'] }, '')).toEqual([
      { field: 'name', message: 'must not contain NUL (U+0000) characters' },
      { field: 'tags[1]', message: 'must be valid Unicode text' },
    ]);
  });

  it('refuses keys named like Object.prototype members', () => {
    const body = JSON.parse('{"__proto__": 1, "toString": 2, "lead": {"constructor": 3}}');
    expect(inspectInput(body, '')).toEqual([
      { field: '__proto__', message: 'is not an allowed field' },
      { field: 'toString', message: 'is not an allowed field' },
      { field: 'lead.constructor', message: 'is not an allowed field' },
    ]);
  });

  it('stops at the depth limit without recursing further', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(inspectInput({ tags: deep }, '')).toEqual([
      { field: `tags${'[0]'.repeat(MAX_INPUT_DEPTH - 1)}`, message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` },
    ]);
  });
});
