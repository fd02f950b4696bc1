import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/env';
import type { JobKind } from '../config/job-kinds';
import type { Claimed, Held, JobHandler, JobTiming, RunContext } from './job-handler';
import { JobRunner } from './job-runner';

/** Waits until `condition` holds, or fails after `deadlineMs`. */
async function until(condition: () => boolean, deadlineMs = 2_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise with its resolver, to hold an item's run until the test lets it end. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A queue in memory: `queued` items are claimed (up to the slots), each run waits for its gate
 * when there is one, and what is given back is recorded.
 */
class FakeHandler implements JobHandler<string> {
  readonly noun = 'test items';
  queued: string[] = [];
  claims = 0;
  claimTimes: number[] = [];
  started: string[] = [];
  done: string[] = [];
  givenBack: string[] = [];
  signals: AbortSignal[] = [];
  maxRunning = 0;
  private running = 0;
  failClaims = 0;
  failRuns = 0;
  gates = new Map<string, Promise<void>>();
  stopped = false;

  constructor(
    readonly kind: JobKind,
    private readonly times: Partial<JobTiming> = {},
    readonly withGiveBack = true,
  ) {
    if (!withGiveBack) this.giveBack = undefined;
  }

  timing(): JobTiming {
    return { pollMs: 60_000, concurrency: 1, ...this.times };
  }

  async claim(held: Held<string>): Promise<Claimed<string>> {
    this.claims++;
    this.claimTimes.push(Date.now());
    if (this.failClaims > 0) {
      this.failClaims--;
      throw new Error('database unreachable');
    }
    return { items: this.queued.splice(0, held.slots) };
  }

  async run(item: string, { signal }: RunContext): Promise<void> {
    this.started.push(item);
    this.signals.push(signal);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      await this.gates.get(item);
      if (this.failRuns > 0) {
        this.failRuns--;
        throw new Error('endpoint down');
      }
      this.done.push(item);
    } finally {
      this.running--;
    }
  }

  giveBack?: (items: readonly string[]) => Promise<void> = async (items) => {
    this.givenBack.push(...items);
  };

  async stop(): Promise<void> {
    this.stopped = true;
  }
}

const configWith = (disabled: JobKind[] = []) => ({ jobs: { disabled: new Set(disabled) } }) as unknown as AppConfig;

describe('JobRunner', () => {
  let runner: JobRunner;
  let warnings: jest.SpyInstance;

  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await runner?.beforeApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('claims at start and runs what it claimed, never more items at once than the concurrency', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('deliveries', { concurrency: 2, pollMs: 10 });
    const held = gate();
    handler.queued = ['a', 'b', 'c', 'd'];
    for (const item of handler.queued) handler.gates.set(item, held.promise);
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.started.length === 2, 2_000, 'two items started');
    // Both slots are held: the other two are not even claimed until one frees.
    expect(handler.queued).toEqual(['c', 'd']);
    held.open();
    await until(() => handler.done.length === 4, 2_000, 'all four done');
    expect(handler.maxRunning).toBe(2);
  });

  it('backs off a kind whose claim fails, logs the reason once, and claims again until it succeeds', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('erasures', { pollMs: 5, backoffMs: 100, maxBackoffMs: 400 });
    handler.failClaims = 3;
    handler.queued = ['a'];
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.done.includes('a'), 3_000, 'the item run after the failures');
    expect(handler.claims).toBeGreaterThanOrEqual(4);
    // 100, 200, 400 ms apart (doubled per failure), not every 5 ms poll.
    const gaps = handler.claimTimes.slice(1, 4).map((time, i) => time - handler.claimTimes[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
    const lines = warnings.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('Cannot claim test items'));
    expect(lines).toEqual(['Cannot claim test items: database unreachable; retrying with backoff up to 0.4 s']);
  });

  it('backs off after an item fails, then runs the items claimed after it', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('embeddings', { pollMs: 5, backoffMs: 150 });
    handler.failRuns = 1;
    handler.queued = ['a', 'b'];
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.done.includes('b'), 3_000, 'the second item run');
    expect(handler.done).toEqual(['b']);
    // The claim after the failure waited for the backoff rather than following at once.
    expect(handler.claimTimes[1] - handler.claimTimes[0]).toBeGreaterThanOrEqual(140);
    expect(warnings.mock.calls.map((call) => String(call[0]))).toContain('Test items failed: endpoint down; retrying with backoff up to 30 s');
  });

  it('claims at once on wake, long before its interval', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('deliveries', { pollMs: 60_000 });
    const queue = runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.claims === 1, 2_000, 'the first claim');
    handler.queued = ['a'];
    queue.wake();
    await until(() => handler.done.includes('a'), 1_000, 'the woken claim to run its item');
  });

  it('never runs a kind this instance has disabled, while the others run', async () => {
    runner = new JobRunner(configWith(['retention']));
    const disabled = new FakeHandler('retention', { pollMs: 5 });
    const enabled = new FakeHandler('erasures', { pollMs: 5 });
    disabled.queued = ['x'];
    const queue = runner.register(disabled);
    runner.register(enabled);
    runner.onApplicationBootstrap();
    queue.wake();
    await until(() => enabled.claims >= 5, 2_000, 'five claims of the enabled kind');
    expect(queue.enabled).toBe(false);
    expect(disabled.claims).toBe(0);
    expect(disabled.started).toEqual([]);
  });

  it('at shutdown stops claiming, lets a running item finish within the grace and gives back what it claimed ahead', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('deliveries', { concurrency: 1, ahead: 2, pollMs: 5, graceMs: 5_000 });
    const held = gate();
    handler.gates.set('a', held.promise);
    handler.queued = ['a', 'b'];
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.started.includes('a'), 2_000, 'the first item started');
    let stopped = false;
    const stopping = runner.beforeApplicationShutdown().then(() => (stopped = true));
    await until(() => handler.givenBack.includes('b'), 1_000, 'the item claimed ahead given back');
    expect(handler.signals[0].aborted).toBe(true);
    expect(stopped).toBe(false);
    const claims = handler.claims;
    held.open();
    await stopping;
    expect(handler.done).toEqual(['a']);
    expect(handler.givenBack).toEqual(['b']);
    expect(handler.stopped).toBe(true);
    expect(handler.claims).toBe(claims);
  });

  it('at shutdown gives back an item still running after the grace', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('deliveries', { pollMs: 5, graceMs: 50 });
    handler.gates.set('a', new Promise<void>(() => undefined));
    handler.queued = ['a'];
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.started.includes('a'), 2_000, 'the item started');
    await runner.beforeApplicationShutdown();
    expect(handler.givenBack).toEqual(['a']);
    expect(handler.done).toEqual([]);
  });

  it('at shutdown waits for a handler without giveBack to stop its item at the signal', async () => {
    runner = new JobRunner(configWith());
    const handler = new FakeHandler('erasures', { pollMs: 5, graceMs: 0 }, false);
    handler.queued = ['a'];
    const released: string[] = [];
    handler.run = async (item, { signal }) => {
      handler.started.push(item);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20));
      released.push(item);
    };
    runner.register(handler);
    runner.onApplicationBootstrap();
    await until(() => handler.started.includes('a'), 2_000, 'the item started');
    await runner.beforeApplicationShutdown();
    expect(released).toEqual(['a']);
  });

  it('refuses a kind registered twice', () => {
    runner = new JobRunner(configWith());
    runner.register(new FakeHandler('erasures'));
    expect(() => runner.register(new FakeHandler('erasures'))).toThrow('registered twice');
  });
});
