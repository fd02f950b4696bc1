import { previousAttributesOf } from './previous-attributes';

describe('previousAttributesOf', () => {
  const before = { id: 'b1', name: 'Old', isActive: true, tags: ['a'], updatedAt: '2026-01-01T00:00:00.000Z' };

  it('gives the old values of the changed fields, updatedAt included', () => {
    const after = { ...before, name: 'New', tags: ['a', 'b'], updatedAt: '2026-01-02T00:00:00.000Z' };
    expect(previousAttributesOf(before, after)).toEqual({ name: 'Old', tags: ['a'], updatedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('sees no change when only updatedAt moved, or nothing did', () => {
    expect(previousAttributesOf(before, { ...before, updatedAt: '2026-01-02T00:00:00.000Z' })).toBeUndefined();
    expect(previousAttributesOf(before, { ...before, tags: ['a'] })).toBeUndefined();
  });
});
