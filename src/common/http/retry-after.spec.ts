import { retryAfter, waitSeconds } from './retry-after';

describe('retryAfter', () => {
  it('gives whole seconds, rounded up, at least 1', () => {
    expect([-5, 0, 1, 999, 1_000, 1_001, 59_500].map(waitSeconds)).toEqual([1, 1, 1, 1, 1, 2, 60]);
    expect(retryAfter(2_001)).toEqual({ 'Retry-After': '3' });
  });
});
