import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { subscribeToChannel } from '../redis/channel-subscription';
import { REDIS_CLIENT } from '../redis/redis.module';

const CHANNEL = 'chatbots:invalidate-tenant';

type Listener = (id: string) => void;

// A user's change travels on the same channel, its id prefixed (tenant ids are bare UUIDs).
const USER_PREFIX = 'user:';

/**
 * Tells every instance that a tenant's cached state (its keys, its plan) or a user's (sessions,
 * memberships) changed. In-process
 * listeners hear it at once; with Redis, other instances hear it through pub/sub. Caches also
 * expire on their own within a second, so a lost message only delays, never keeps, stale state.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(InvalidationBus.name);
  private readonly listeners: Listener[] = [];
  private readonly userListeners: Listener[] = [];
  private unsubscribe?: () => void;

  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null) {}

  onModuleInit(): void {
    if (!this.redis) return;
    this.unsubscribe = subscribeToChannel(this.redis, CHANNEL, (id) => this.notify(id), this.logger);
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Hears that a user's sessions or memberships changed (a session ended, a role changed). */
  onUserChange(listener: Listener): void {
    this.userListeners.push(listener);
  }

  /** Announces a change: here at once, elsewhere through Redis when configured. */
  tenantChanged(tenantId: string): Promise<void> {
    return this.announce(tenantId);
  }

  userChanged(userId: string): Promise<void> {
    return this.announce(`${USER_PREFIX}${userId}`);
  }

  private async announce(message: string): Promise<void> {
    this.notify(message);
    if (!this.redis) return;
    await this.redis.publish(CHANNEL, message).catch((error: unknown) => {
      this.logger.warn(`Invalidation not published (other instances catch up within a second): ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
  }

  private notify(message: string): void {
    if (message.startsWith(USER_PREFIX)) {
      const userId = message.slice(USER_PREFIX.length);
      for (const listener of this.userListeners) listener(userId);
      return;
    }
    for (const listener of this.listeners) listener(message);
  }
}
