import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../config/env';

/** The shared Redis client, or null when REDIS_URL is unset (everything then runs in-process). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A Redis client that never makes a request wait on an outage: no offline queue, no per-command
 * retries, short timeouts; it keeps reconnecting in the background.
 */
export function createRedisClient(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Errors surface on the commands (and are logged by their callers); an unhandled 'error' event
  // would otherwise crash the process.
  redis.on('error', () => undefined);
  return redis;
}

const STARTUP_CONNECT_WAIT_MS = 3_000;

/**
 * Connects before the app serves, so the first requests already count in the shared store. A
 * Redis that is down at start is not fatal: its users fall back to in-process state and switch
 * to Redis when it comes up.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = createRedisClient(url);
  const ready = new Promise<boolean>((resolve) => {
    redis.once('ready', () => resolve(true));
    setTimeout(() => resolve(false), STARTUP_CONNECT_WAIT_MS).unref();
  });
  if (!(await ready)) new Logger('Redis').warn('Redis is not reachable at start; limiting in-process until it is.');
  return redis;
}

/** Owns the one Redis connection (REDIS_URL) that the rate limiter, the invalidation bus and health share. */
@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');

  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null) {}

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS_CLIENT, useFactory: () => (config.redisUrl ? connectRedis(config.redisUrl) : null) }],
      exports: [REDIS_CLIENT],
    };
  }

  onApplicationShutdown(): void {
    if (!this.redis) return;
    this.redis.disconnect();
    this.logger.log('Redis connection closed.');
  }
}
