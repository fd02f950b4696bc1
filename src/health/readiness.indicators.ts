import { Inject, Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorFunction, HealthIndicatorService } from '@nestjs/terminus';
import type Redis from 'ioredis';
import { REDIS_CLIENT } from '../redis/redis.module';
import { DATABASE_CONNECTION, type DatabaseConnection } from '../database/database-connection';
import { SchemaStatus } from '../database/schema-status';
import { ShutdownState } from '../lifecycle/shutdown-state';

const PROBE_TIMEOUT_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);
}

/** Ready means: not shutting down, the database answers and is migrated, and Redis answers when configured. */
@Injectable()
export class ReadinessIndicators {
  constructor(
    private readonly indicator: HealthIndicatorService,
    private readonly shutdown: ShutdownState,
    @Inject(DATABASE_CONNECTION) private readonly database: DatabaseConnection,
    private readonly schema: SchemaStatus,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null,
  ) {}

  all(): HealthIndicatorFunction[] {
    const checks: HealthIndicatorFunction[] = [() => this.accepting(), () => this.databaseReachable()];
    if (this.redis) checks.push(() => this.redisReachable(this.redis!));
    return checks;
  }

  private accepting() {
    const session = this.indicator.check('lifecycle');
    return this.shutdown.draining ? session.down({ message: 'shutting down' }) : session.up();
  }

  private async databaseReachable() {
    const session = this.indicator.check('database');
    try {
      await withTimeout(this.database.ping(), PROBE_TIMEOUT_MS);
    } catch {
      return session.down({ message: 'unreachable' });
    }
    let problem: string | undefined;
    try {
      problem = await withTimeout(this.schema.problem(), PROBE_TIMEOUT_MS);
    } catch {
      return session.down({ message: 'unreachable' });
    }
    return problem ? session.down({ kind: this.database.kind, message: problem }) : session.up({ kind: this.database.kind });
  }

  private async redisReachable(redis: Redis) {
    const session = this.indicator.check('redis');
    try {
      await withTimeout(redis.ping(), PROBE_TIMEOUT_MS);
      return session.up();
    } catch {
      return session.down({ message: 'unreachable' });
    }
  }
}
