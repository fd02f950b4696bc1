import { Injectable } from '@nestjs/common';
import { BriefLookupCache } from '../common/cache/brief-lookup-cache';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import type { PrismaTransaction } from '../database/prisma.service';
import { MessageQuotaRepository, monthOf, nextMonth } from './message-quota.repository';

/** How long a month's count is reported without reading it again. */
export const USAGE_CACHE_TTL_MS = 1_000;
const MAX_CACHED_TENANTS = 10_000;

/**
 * The plan's monthly message limit (messagesLimit), around each bot reply: check() before the
 * answer is worked out (cheap, the count at most a second old), take() in the transaction that
 * stores the reply (exact), remember() its count once that transaction has committed. Over the limit is
 * 429 MESSAGE_LIMIT_REACHED with Retry-After up to the next month (UTC).
 */
@Injectable()
export class MessageQuota {
  // /verify reports the count on every call: read at most once a second per tenant, a verify took
  // 784 -> 428 µs of CPU (npm run bench:compare). take() is exact whatever this says.
  private readonly counts = new BriefLookupCache<{ count: number }>(USAGE_CACHE_TTL_MS, MAX_CACHED_TENANTS);

  constructor(private readonly usage: MessageQuotaRepository) {}

  /**
   * The month's count, at most a second old: up to date on this instance after remember() (but
   * for replies still being stored), up to a second behind the replies other instances store.
   */
  async usedThisMonth(tenantId: string, now = new Date()): Promise<number> {
    const month = monthOf(now);
    const cached = await this.counts.getOrLookUp(keyOf(tenantId, month), now.getTime(), async () => ({ count: await this.usage.count(tenantId, month) }));
    return cached!.count;
  }

  /** Refuses a reply when the month's count (usedThisMonth) has reached `limit`. */
  async check(tenantId: string, limit: number, now = new Date()): Promise<void> {
    if ((await this.usedThisMonth(tenantId, now)) >= limit) throw messageLimitReached(limit, now);
  }

  /** Counts the reply in `tx`, exactly (MessageQuotaRepository.take), or refuses it and `tx` with it; the month's count with it. */
  async take(tenantId: string, limit: number, now: Date, tx: PrismaTransaction): Promise<number> {
    const count = await this.usage.take(tenantId, limit, now, tx);
    if (count === undefined) throw messageLimitReached(limit, now);
    return count;
  }

  /**
   * After the reply's transaction has committed: usedThisMonth reports the count it left (or a
   * higher one already known: replies commit out of order). Dropping the count instead cost every
   * widget message a read of it at its check (~600 µs of CPU).
   */
  remember(tenantId: string, count: number, now = new Date()): void {
    const key = keyOf(tenantId, monthOf(now));
    this.counts.replace(key, { count: Math.max(count, this.counts.get(key, now.getTime())?.count ?? 0) }, now.getTime());
  }
}

const keyOf = (tenantId: string, month: Date) => `${tenantId}:${month.toISOString().slice(0, 7)}`;

function messageLimitReached(limit: number, now: Date): AppError {
  return new AppError(
    ErrorCode.MESSAGE_LIMIT_REACHED,
    `The plan's limit of ${limit} bot replies this month is reached; it resets on the first of next month (UTC).`,
    undefined,
    retryAfter(nextMonth(now).getTime() - now.getTime()),
  );
}
