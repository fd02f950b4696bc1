import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../database/prisma.service';

/** Requests and error answers of one key on one UTC day (`day` as `YYYY-MM-DD`). */
export interface KeyDayCount {
  tenantId: string;
  apiKeyId: string;
  day: string;
  requests: number;
  errors: number;
}

// Five parameters a row; PostgreSQL takes at most 65,535 in a statement.
const ROWS_PER_STATEMENT = 10_000;

@Injectable()
export class ApiKeyActivityRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The stored counts of a key from `fromDay` on (inclusive). */
  async listDays(tenantId: string, apiKeyId: string, fromDay: string): Promise<{ day: string; requests: number; errors: number }[]> {
    const rows = await this.prisma.apiKeyActivity.findMany({
      where: { tenantId, apiKeyId, day: { gte: new Date(`${fromDay}T00:00:00.000Z`) } },
      select: { day: true, requests: true, errors: true },
    });
    return rows.map((row) => ({ day: row.day.toISOString().slice(0, 10), requests: row.requests, errors: row.errors }));
  }

  /**
   * Adds the counts to the stored ones, in one statement (the batch of a flush). Not scoped by one
   * tenant: a flush carries the counts of every tenant this instance served. Counts of a
   * tenant that no longer exists are dropped rather than failing the whole batch.
   */
  async addCounts(counts: readonly KeyDayCount[]): Promise<void> {
    for (let start = 0; start < counts.length; start += ROWS_PER_STATEMENT) {
      const rows = counts
        .slice(start, start + ROWS_PER_STATEMENT)
        .map((c) => Prisma.sql`(${c.tenantId}::uuid, ${c.apiKeyId}::uuid, ${c.day}::date, ${c.requests}::int, ${c.errors}::int)`);
      await this.prisma.$executeRaw`
        INSERT INTO "ApiKeyActivity" ("tenantId", "apiKeyId", "day", "requests", "errors")
        SELECT "v"."tenantId", "v"."apiKeyId", "v"."day", "v"."requests", "v"."errors"
        FROM (VALUES ${Prisma.join(rows)}) AS "v" ("tenantId", "apiKeyId", "day", "requests", "errors")
        WHERE EXISTS (SELECT 1 FROM "Tenant" WHERE "Tenant"."id" = "v"."tenantId")
        ON CONFLICT ("apiKeyId", "day") DO UPDATE
        SET "requests" = "ApiKeyActivity"."requests" + EXCLUDED."requests", "errors" = "ApiKeyActivity"."errors" + EXCLUDED."errors"`;
    }
  }
}
