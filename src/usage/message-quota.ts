import { Injectable } from '@nestjs/common';
import { BriefLookupCache } from '../common/cache/brief-lookup-cache';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import type { PrismaTransaction } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import {
  countReplyStatement,
  dayOf,
  MessageQuotaRepository,
  monthOf,
  MonthUsage,
  nextDay,
  nextMonth,
  ReplyCounts,
  ReplyLimits,
} from './message-quota.repository';

/** How long a month's count is reported without reading it again. */
export const USAGE_CACHE_TTL_MS = 1_000;
const MAX_CACHED_TENANTS = 10_000;

/**
 * The plan's monthly message limit (messagesLimit), and for the widget the tenant's daily one
 * (widgetLimits.repliesPerDay), around each bot reply: check() before the answer is worked out
 * (cheap, the counts at most a second old), take() in the transaction that stores the reply
 * (exact), remember() its counts once that transaction has committed. Over a limit is 429
 * MESSAGE_LIMIT_REACHED with Retry-After up to the next month (the day's: the next day), UTC.
 */
@Injectable()
export class MessageQuota {
  // /verify reports the count on every call: read at most once a second per tenant, a verify took
  // 784 -> 428 µs of CPU (npm run bench:compare). take() is exact whatever this says.
  private readonly counts = new BriefLookupCache<MonthUsage>(USAGE_CACHE_TTL_MS, MAX_CACHED_TENANTS);

  constructor(private readonly usage: MessageQuotaRepository) {}

  /**
   * The month's count, at most a second old: up to date on this instance after remember() (but
   * for replies still being stored), up to a second behind the replies other instances store.
   */
  async usedThisMonth(tenantId: string, now = new Date()): Promise<number> {
    return (await this.monthUsage(tenantId, now)).count;
  }

  /**
   * The one entry into the quota for a reply: refuses it now when a limit is reached (check), else
   * gives the allowance the reply is counted through, exactly, when it is stored.
   */
  async allow(tenantId: string, limits: ReplyLimits, now = new Date()): Promise<ReplyAllowance> {
    await this.check(tenantId, limits, now);
    return new ReplyAllowance(this, tenantId, limits);
  }

  /** Refuses a reply when the month's count (usedThisMonth) has reached the month's limit, or the widget's of today its day's. */
  async check(tenantId: string, limits: ReplyLimits, now = new Date()): Promise<void> {
    const usage = await this.monthUsage(tenantId, now);
    if (usage.count >= limits.month) throw messageLimitReached(limits.month, now);
    if (limits.widgetDay !== undefined && usage.widgetDay === dayOf(now) && usage.widgetDayCount >= limits.widgetDay)
      throw widgetDayLimitReached(limits.widgetDay, now);
  }

  /** Counts the reply in `tx`, exactly (MessageQuotaRepository.take), or refuses it and `tx` with it; the counts with it. */
  async take(tenantId: string, limits: ReplyLimits, now: Date, tx: PrismaTransaction): Promise<ReplyCounts> {
    const counts = await this.usage.take(tenantId, limits, now, tx);
    if (counts) return counts;
    // Refused: the row is locked by this transaction now, so it tells which limit refused.
    const usage = await this.usage.count(tenantId, monthOf(now), tx);
    if (usage.count >= limits.month || limits.widgetDay === undefined) throw messageLimitReached(limits.month, now);
    throw widgetDayLimitReached(limits.widgetDay, now);
  }

  /**
   * After the reply's transaction has committed: usedThisMonth reports the counts it left (or
   * higher ones already known: replies commit out of order). Dropping the count instead cost every
   * widget message a read of it at its check (~600 µs of CPU). A widget reply's day is today's.
   */
  remember(tenantId: string, counts: ReplyCounts, now = new Date(), widgetReply = false): void {
    const key = keyOf(tenantId, monthOf(now));
    const known = this.counts.get(key, now.getTime());
    const today = dayOf(now);
    const day = widgetReply ? today : (known?.widgetDay ?? null);
    const knownToday = known?.widgetDay === day ? known.widgetDayCount : 0;
    this.counts.replace(
      key,
      {
        count: Math.max(counts.count, known?.count ?? 0),
        widgetDay: day,
        widgetDayCount: widgetReply ? Math.max(counts.widgetDayCount, knownToday) : knownToday,
      },
      now.getTime(),
    );
  }

  private async monthUsage(tenantId: string, now: Date): Promise<MonthUsage> {
    const month = monthOf(now);
    return (await this.counts.getOrLookUp(keyOf(tenantId, month), now.getTime(), () => this.usage.count(tenantId, month)))!;
  }
}

/**
 * A reply the quota allowed at its check (MessageQuota.allow), to be counted exactly where it is
 * stored: in its transaction (take), or in the statement that stores it (countingStatement); then
 * its counts are remembered (counted).
 */
export class ReplyAllowance {
  constructor(
    private readonly quota: MessageQuota,
    readonly tenantId: string,
    readonly limits: ReplyLimits,
  ) {}

  /** The statement that counts the reply when `when` holds, RETURNING "count" and "widgetDayCount" (no row: refused). */
  countingStatement(now: Date, when: Prisma.Sql): Prisma.Sql {
    return countReplyStatement(this.tenantId, this.limits, now, when);
  }

  /** Counts the reply in `tx`, or refuses it and `tx` with it (429 MESSAGE_LIMIT_REACHED). */
  take(now: Date, tx: PrismaTransaction): Promise<ReplyCounts> {
    return this.quota.take(this.tenantId, this.limits, now, tx);
  }

  /** After the reply's commit: its counts, so that usedThisMonth is current on this instance. */
  counted(counts: ReplyCounts, at: Date): void {
    this.quota.remember(this.tenantId, counts, at, this.limits.widgetDay !== undefined);
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

function widgetDayLimitReached(limit: number, now: Date): AppError {
  return new AppError(
    ErrorCode.MESSAGE_LIMIT_REACHED,
    `The widget's limit of ${limit} bot replies today is reached (settings: widgetLimits.repliesPerDay); it resets at midnight UTC.`,
    undefined,
    retryAfter(nextDay(now).getTime() - now.getTime()),
  );
}
