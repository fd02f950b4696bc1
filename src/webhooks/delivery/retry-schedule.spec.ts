import { nextAttemptAt } from './retry-schedule';

describe('nextAttemptAt', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  const schedule = [5, 300, 1800];

  it('follows the schedule with ±10% jitter', () => {
    expect(nextAttemptAt(1, schedule, now, undefined, () => 0.5)).toEqual(new Date(now.getTime() + 5_000));
    expect(nextAttemptAt(2, schedule, now, undefined, () => 0)).toEqual(new Date(now.getTime() + 270_000));
    expect(nextAttemptAt(3, schedule, now, undefined, () => 1)).toEqual(new Date(now.getTime() + 1_980_000));
  });

  it('waits for Retry-After when it is longer, and ends after the last entry', () => {
    expect(nextAttemptAt(1, schedule, now, 60, () => 0.5)).toEqual(new Date(now.getTime() + 60_000));
    expect(nextAttemptAt(2, schedule, now, 60, () => 0.5)).toEqual(new Date(now.getTime() + 300_000));
    expect(nextAttemptAt(4, schedule, now)).toBeNull();
  });

  it('counts Retry-After up to an hour', () => {
    expect(nextAttemptAt(1, schedule, now, 99_999_999_999_999, () => 0.5)).toEqual(new Date(now.getTime() + 3_600_000));
    expect(nextAttemptAt(1, schedule, now, Number.MAX_VALUE, () => 0.5)).toEqual(new Date(now.getTime() + 3_600_000));
  });
});
