import { TermFrequencyCache } from './term-frequencies';

const counted = (strict: number) => ({ strict, loose: 0, present: [true] });

describe('TermFrequencyCache', () => {
  it("keeps a bot's counts for its knowledge version only", () => {
    const cache = new TermFrequencyCache();
    expect(cache.get('bot', 1)).toBeUndefined();
    const entry = cache.start('bot', 1, 40);
    cache.record(entry, 'shipping', counted(3));
    cache.record(entry, 'the', null);
    expect(cache.get('bot', 1)?.groups).toEqual(
      new Map([
        ['shipping', counted(3)],
        ['the', null],
      ]),
    );
    expect(cache.get('bot', 1)?.passages).toBe(40);
    // The passages changed (the trigger moved the version): nothing counted before is used.
    expect(cache.get('bot', 2)).toBeUndefined();
    expect(cache.get('bot', 1)).toBeUndefined();
  });

  it('replaces an older entry when a question starts counting at a newer version', () => {
    const cache = new TermFrequencyCache();
    cache.record(cache.start('bot', 1, 10), 'refund', counted(1));
    const newer = cache.start('bot', 2, 12);
    expect(cache.get('bot', 2)).toBe(newer);
    expect(newer.groups.size).toBe(0);
  });

  it('drops the least recently used bots beyond 50,000 counts, never the one being filled', () => {
    const cache = new TermFrequencyCache();
    const old = cache.start('old', 1, 5);
    cache.record(old, 'word', counted(1));
    const recent = cache.start('recent', 1, 5);
    cache.record(recent, 'word', counted(1));
    expect(cache.get('old', 1)).toBe(old); // now the most recently used
    const big = cache.start('big', 1, 1000);
    for (let i = 0; i < 49_999; i++) cache.record(big, `word${i}`, counted(i));
    expect(cache.get('recent', 1)).toBeUndefined();
    expect(cache.get('old', 1)).toBe(old);
    cache.record(big, 'one more', counted(1));
    expect(cache.get('old', 1)).toBeUndefined();
    expect(cache.get('big', 1)?.groups.size).toBe(50_000);
  });
});
