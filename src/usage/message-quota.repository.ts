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

/** A tenant's bot replies per calendar month (UTC), one MessageUsage row per month. */
@Injectable()
export class MessageQuotaRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The replies counted in `month` (as monthOf gives it). */
  async count(tenantId: string, month: Date): Promise<number> {
    const row = await this.prisma.messageUsage.findUnique({ where: { tenantId_month: { tenantId, month } }, select: { count: true } });
    return row?.count ?? 0;
  }

  /**
   * Counts one reply if the month is still under `limit`; false when it is not. One statement: the
   * row's lock orders concurrent replies (across instances too), and each sees the count the one
   * before it left, so exactly `limit` replies are counted. The lock is held until the caller's
   * transaction ends, which stores the reply: a rolled-back reply is not counted. Returns the
   * month's count with this reply, or undefined when it was refused.
   */
  async take(tenantId: string, limit: number, now: Date, tx: PrismaTransaction): Promise<number | undefined> {
    const rows = await tx.$queryRaw<{ count: number }[]>(countReplyStatement(tenantId, limit, now));
    return rows.length === 1 ? rows[0].count : undefined;
  }
}

/**
 * The statement that counts one reply in the month of `now` if it is still under `limit`,
 * RETURNING the new "count" (no row: refused), and only `when` holds: take()'s, and a common
 * table expression of a reply stored in one statement (WidgetService).
 */
export function countReplyStatement(tenantId: string, limit: number, now: Date, when: Prisma.Sql = Prisma.sql`true`): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "MessageUsage" ("tenantId", "month", "count")
    SELECT ${tenantId}::uuid, ${monthOf(now).toISOString().slice(0, 10)}::date, 1 WHERE ${limit}::int > 0 AND ${when}
    ON CONFLICT ("tenantId", "month") DO UPDATE SET "count" = "MessageUsage"."count" + 1 WHERE "MessageUsage"."count" < ${limit}::int
    RETURNING "count"`;
}
