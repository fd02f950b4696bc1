import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/env';
import type { JobKind } from '../config/job-kinds';
import type { JobHandler } from './job-handler';
import { JobLoop } from './job-loop';

/** What a feature keeps of its registration: the handle on its kind's loop. */
export interface JobQueue<Item> {
  /** Whether this instance runs the kind (JOBS_DISABLED and the *_WORKER switches). */
  readonly enabled: boolean;
  /** Something was queued in this process: claim soon rather than at the interval. */
  wake(): void;
  /** Drops items claimed ahead that are not to run any more; returns them. */
  drop(unwanted: (item: Item) => boolean): Item[];
  /** Stops the kind on this instance (the app's shutdown does it too): see JobLoop.stop. */
  stop(): Promise<void>;
}

/**
 * Runs every kind of background work of this instance (deliveries, erasures, the retention sweep,
 * embeddings, API key activity): each feature registers its handler once (at its module's init),
 * the runner starts the kinds this instance runs once the app is up and stops them all before the
 * database closes. One loop per kind (JobLoop), so a slow or failing kind never holds up another.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly loops = new Map<JobKind, JobLoop<unknown>>();
  private readonly registered = new Set<JobKind>();
  private started = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Registers a kind's handler; a kind disabled on this instance gets a handle that does nothing. */
  register<Item>(handler: JobHandler<Item>): JobQueue<Item> {
    if (this.registered.has(handler.kind)) throw new Error(`Job kind ${handler.kind} is registered twice`);
    this.registered.add(handler.kind);
    const enabled = !this.config.jobs.disabled.has(handler.kind);
    const loop = new JobLoop(handler, new Logger(`Jobs: ${handler.kind}`));
    if (enabled) {
      this.loops.set(handler.kind, loop as JobLoop<unknown>);
      if (this.started) void loop.start();
    }
    return {
      enabled,
      wake: () => loop.wake(),
      drop: (unwanted) => loop.drop(unwanted),
      stop: () => loop.stop(),
    };
  }

  /** After every module's init, when the features have registered: their loops start. */
  onApplicationBootstrap(): void {
    this.started = true;
    for (const loop of this.loops.values()) void loop.start();
    if (this.config.jobs.disabled.size) this.logger.log(`Background work not run by this instance: ${[...this.config.jobs.disabled].join(', ')}`);
  }

  /** Before the database closes: every kind stops claiming, finishes or gives back what it holds. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
  }
}
