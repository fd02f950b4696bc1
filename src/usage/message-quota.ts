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
 * stores the reply (exact), forget() once that transaction has committed. Over the limit is
 * 429 MESSAGE_LIMIT_REACHED with Retry-After up to the next month (UTC).
 */
@Injectable()
export class MessageQuota {
  // /verify reports the count on every call: read at most once a second per tenant, a verify took
  // 784 -> 428 µs of CPU (npm run bench:compare). take() is exact whatever this says.
  private readonly counts = new BriefLookupCache<{ count: number }>(USAGE_CACHE_TTL_MS, MAX_CACHED_TENANTS);

  constructor(private readonly usage: MessageQuotaRepository) {}

  /**
   * The month's count, at most a second old: exact on this instance after forget(), up to a
   * second behind the replies other instances store.
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

  /** Counts the reply in `tx`, exactly (MessageQuotaRepository.take), or refuses it and `tx` with it. */
  async take(tenantId: string, limit: number, now: Date, tx: PrismaTransaction): Promise<void> {
    if (!(await this.usage.take(tenantId, limit, now, tx))) throw messageLimitReached(limit, now);
  }

  /** After the reply's transaction has committed: the next usedThisMonth reads the database. */
  forget(tenantId: string, now = new Date()): void {
    this.counts.dropKey(keyOf(tenantId, monthOf(now)));
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
