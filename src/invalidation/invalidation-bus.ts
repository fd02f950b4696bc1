import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS_CLIENT } from '../redis/redis.module';

const CHANNEL = 'chatbots:invalidate-tenant';

type Listener = (tenantId: string) => void;

/**
 * Tells every instance that a tenant's cached state (its keys, its plan) changed. In-process
 * listeners hear it at once; with Redis, other instances hear it through pub/sub. Caches also
 * expire on their own within a second, so a lost message only delays, never keeps, stale state.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(InvalidationBus.name);
  private readonly listeners: Listener[] = [];
  private subscriber?: Redis;

  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null) {}

  onModuleInit(): void {
    if (!this.redis) return;
    // A subscriber connection of its own; it may queue while reconnecting, since no request waits on it.
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, tenantId: string) => this.notify(tenantId));
    this.subscriber.subscribe(CHANNEL).catch((error: unknown) => this.logger.warn(`Cannot subscribe to invalidations: ${String(error)}`));
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Announces a change: here at once, elsewhere through Redis when configured. */
  async tenantChanged(tenantId: string): Promise<void> {
    this.notify(tenantId);
    if (!this.redis) return;
    await this.redis.publish(CHANNEL, tenantId).catch((error: unknown) => {
      this.logger.warn(`Invalidation not published (other instances catch up within a second): ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private notify(tenantId: string): void {
    for (const listener of this.listeners) listener(tenantId);
  }
}
