import { AppError } from '../../common/errors/app-error';
import { HashingPool } from './hashing-pool';

/** A job that runs until released. */
function job() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => done, release };
}

describe('HashingPool', () => {
  it('runs at most `concurrent` jobs, queues at most `waiting`, and refuses the next with 503 and Retry-After', async () => {
    const pool = new HashingPool(1, 1, 'Busy.');
    const first = job();
    const second = job();
    let secondStarted = false;
    const running = pool.run(first.work);
    const queued = pool.run(() => ((secondStarted = true), second.work()));
    await expect(pool.run(async () => undefined)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
    await expect(pool.run(async () => undefined)).rejects.toBeInstanceOf(AppError);
    expect(secondStarted).toBe(false);
    first.release();
    await running;
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondStarted).toBe(true);
    second.release();
    await queued;
    // Free again.
    await expect(pool.run(async () => 'ran')).resolves.toBe('ran');
  });

  it('frees the slot when a job fails', async () => {
    const pool = new HashingPool(1, 0, 'Busy.');
    await expect(pool.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(pool.run(async () => 'ran')).resolves.toBe('ran');
  });
});
