import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import Redis from 'ioredis';
import { freePort, sleep } from './child-server';

/** True when `redis-server` is on the PATH. */
export const hasRedisServer = (): boolean => spawnSync('redis-server', ['--version']).status === 0;

/**
 * A Redis of the test's own on a spare port (no persistence), so that stopping it never touches
 * the machine's shared one. `stop()` kills it (SIGKILL, a crash); `start()` brings it back on the
 * same port, empty.
 */
export class EphemeralRedis {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(readonly port: number) {}

  static async create(port?: number): Promise<EphemeralRedis> {
    const redis = new EphemeralRedis(port ?? (await freePort()));
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.running) throw new Error('redis-server is already running');
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      for (let attempt = 0; attempt < 100; attempt++) {
        if (!this.running) throw new Error(`redis-server exited at start on port ${this.port}`);
        try {
          await probe.connect();
          await probe.ping();
          return;
        } catch {
          probe.disconnect();
          await sleep(50);
        }
      }
      throw new Error(`redis-server did not answer on port ${this.port}`);
    } finally {
      probe.disconnect();
    }
  }

  /** SIGKILL: connections are reset, nothing is flushed. Resolves once the process is gone. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGKILL');
    await this.exited;
  }
}
