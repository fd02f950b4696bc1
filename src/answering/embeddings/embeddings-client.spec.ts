import { normalized, vectorsOf } from './embeddings-client';
import { nearestOf } from './semantic-search';

describe('vectorsOf', () => {
  it('puts the vectors back in input order by their index', () => {
    const body = {
      data: [
        { index: 1, embedding: [0, 1] },
        { index: 0, embedding: [1, 0] },
      ],
    };
    expect(vectorsOf(body, 2)).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it.each([
    ['a missing data list', {}],
    ['one vector too few', { data: [{ index: 0, embedding: [1] }] }],
    [
      'an index given twice',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [2] },
        ],
      },
    ],
    [
      'an index out of range',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 2, embedding: [2] },
        ],
      },
    ],
    [
      'numbers as text',
      {
        data: [
          { index: 0, embedding: ['1'] },
          { index: 1, embedding: [2] },
        ],
      },
    ],
    [
      'vectors of two lengths',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 1, embedding: [2, 3] },
        ],
      },
    ],
  ])('refuses %s', (_name, body) => {
    expect(() => vectorsOf(body, 2)).toThrow();
  });
});

describe('normalized and nearestOf', () => {
  it('scales to length 1 and gives no vector for zeros', () => {
    expect(Array.from(normalized([3, 4])!)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(normalized([0, 0])).toBeUndefined();
  });

  it('ranks by cosine, keeps those at or above the minimum, and breaks ties by id', () => {
    const rows = [
      [1, 0],
      [0, 1],
      [1, 1],
      [1, 0],
    ].map((vector) => normalized(vector)!);
    const vectors = { chunkIds: ['d', 'b', 'c', 'a'], dimensions: 2, matrix: Float32Array.from(rows.flatMap((row) => Array.from(row))) };
    const hits = nearestOf(normalized([1, 0])!, vectors, 0.5);
    expect(hits.map((hit) => hit.chunkId)).toEqual(['a', 'd', 'c']);
    expect(hits[2].similarity).toBeCloseTo(Math.SQRT1_2, 5);
  });
});
