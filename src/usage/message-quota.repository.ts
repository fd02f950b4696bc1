import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

/** The first day (UTC) of the month of `now`, as the MessageUsage key. */
export function monthOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The start of the next month (UTC): when the monthly limit resets. */
export function nextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The first moment (UTC) of the day after `now`'s: when the widget's daily limit resets. */
export function nextDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** `now`'s UTC day, `YYYY-MM-DD`: the day the widget's replies are counted in. */
export const dayOf = (now: Date): string => now.toISOString().slice(0, 10);

/** A month's counts: its replies, and the widget's replies on the last day it replied (widgetDay). */
export interface MonthUsage {
  count: number;
  widgetDay: string | null;
  widgetDayCount: number;
}

/**
 * A tenant's bot replies per calendar month (UTC), one MessageUsage row per month. The row also
 * counts the widget's replies of the current UTC day (widgetLimits.repliesPerDay): a day lies
 * within its month, so one row, locked once, counts both limits exactly.
 */
@Injectable()
export class MessageQuotaRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The replies counted in `month` (as monthOf gives it), and the widget's of its last day. */
  async count(tenantId: string, month: Date, tx: PrismaTransaction = this.prisma): Promise<MonthUsage> {
    const row = await tx.messageUsage.findUnique({
      where: { tenantId_month: { tenantId, month } },
      select: { count: true, widgetDay: true, widgetDayCount: true },
    });
    return { count: row?.count ?? 0, widgetDay: row?.widgetDay ? dayOf(row.widgetDay) : null, widgetDayCount: row?.widgetDayCount ?? 0 };
  }

  /**
   * Counts one reply if the month is still under `limit`; false when it is not. One statement: the
   * row's lock orders concurrent replies (across instances too), and each sees the count the one
   * before it left, so exactly `limit` replies are counted. The lock is held until the caller's
   * transaction ends, which stores the reply: a rolled-back reply is not counted. Returns the
   * month's count with this reply (and the widget's of the day), or undefined when it was refused.
   */
  async take(tenantId: string, limits: ReplyLimits, now: Date, tx: PrismaTransaction): Promise<ReplyCounts | undefined> {
    const rows = await tx.$queryRaw<ReplyCounts[]>(countReplyStatement(tenantId, limits, now));
    return rows.length === 1 ? rows[0] : undefined;
  }
}

/** The limits a reply is counted under: the plan's month, and for a widget reply the tenant's day. */
export interface ReplyLimits {
  month: number;
  widgetDay?: number;
}

/** The counts a reply left: the month's, and the widget's of the day (unchanged by other replies). */
export interface ReplyCounts {
  count: number;
  widgetDayCount: number;
}

/**
 * The statement that counts one reply in the month of `now` if it is still under the month's
 * limit (and, for a widget reply, the day under `widgetDay`), RETURNING the new "count" and
 * "widgetDayCount" (no row: refused), and only `when` holds: take()'s, and a common table
 * expression of a reply stored in one statement (WidgetService).
 */
export function countReplyStatement(tenantId: string, limits: ReplyLimits, now: Date, when: Prisma.Sql = Prisma.sql`true`): Prisma.Sql {
  const month = Prisma.sql`${monthOf(now).toISOString().slice(0, 10)}::date`;
  if (limits.widgetDay === undefined) {
    return Prisma.sql`
      INSERT INTO "MessageUsage" ("tenantId", "month", "count")
      SELECT ${tenantId}::uuid, ${month}, 1 WHERE ${limits.month}::int > 0 AND ${when}
      ON CONFLICT ("tenantId", "month") DO UPDATE SET "count" = "MessageUsage"."count" + 1 WHERE "MessageUsage"."count" < ${limits.month}::int
      RETURNING "count", "widgetDayCount"`;
  }
  const day = Prisma.sql`${dayOf(now)}::date`;
  return Prisma.sql`
    INSERT INTO "MessageUsage" ("tenantId", "month", "count", "widgetDay", "widgetDayCount")
    SELECT ${tenantId}::uuid, ${month}, 1, ${day}, 1 WHERE ${limits.month}::int > 0 AND ${limits.widgetDay}::int > 0 AND ${when}
    ON CONFLICT ("tenantId", "month") DO UPDATE SET
      "count" = "MessageUsage"."count" + 1,
      "widgetDay" = ${day},
      "widgetDayCount" = CASE WHEN "MessageUsage"."widgetDay" = ${day} THEN "MessageUsage"."widgetDayCount" + 1 ELSE 1 END
    WHERE "MessageUsage"."count" < ${limits.month}::int
      AND ("MessageUsage"."widgetDay" IS DISTINCT FROM ${day} OR "MessageUsage"."widgetDayCount" < ${limits.widgetDay}::int)
    RETURNING "count", "widgetDayCount"`;
}
