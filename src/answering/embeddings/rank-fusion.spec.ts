import { fuseRankings, RRF_K } from './rank-fusion';

const passage = (documentId: string, content = `${documentId} text`) => ({ documentId, content });

describe('fuseRankings', () => {
  it('is the word ranking itself when nothing was found by meaning', () => {
    const words = [passage('a'), passage('b')];
    expect(fuseRankings(words, [])).toEqual(words);
  });

  it('puts a passage both rankings hold above one that only one of them ranks first', () => {
    const fused = fuseRankings([passage('a'), passage('b')], [passage('c'), passage('b')]);
    expect(fused.map((p) => p.documentId)).toEqual(['b', 'a', 'c']);
  });

  it('sums 1 / (k + rank) over the rankings', () => {
    // b: 1/(k+2) + 1/(k+2) = 2/62; a: 1/61. 2/62 > 1/61.
    expect(2 / (RRF_K + 2)).toBeGreaterThan(1 / (RRF_K + 1));
    const fused = fuseRankings([passage('a'), passage('b')], [passage('x'), passage('b')]);
    expect(fused[0].documentId).toBe('b');
  });

  it('breaks equal scores by the word ranking, then the meaning ranking, so the order never varies', () => {
    const fused = fuseRankings([passage('a'), passage('b')], [passage('c'), passage('d')]);
    expect(fused.map((p) => p.documentId)).toEqual(['a', 'c', 'b', 'd']);
  });

  it("tells passages apart by document and text, and keeps the word ranking's object", () => {
    const fromWords = { ...passage('a', 'same'), coverage: 1 };
    const fused = fuseRankings([fromWords], [passage('a', 'same'), passage('b', 'same')]);
    expect(fused).toEqual([fromWords, passage('b', 'same')]);
  });
});
