import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { sqlStateOf } from '../database/sql-state';
import type { RecordedResponse } from './idempotent-response';

const recordSelect = { requestHash: true, status: true, responseBody: true, location: true, erasedAt: true } satisfies Prisma.IdempotencyRecordSelect;

export type IdempotencyRecordRow = Prisma.IdempotencyRecordGetPayload<{ select: typeof recordSelect }>;

/** `claimed`: this transaction holds the key; `held`: a live record has it; `busy`: another transaction still holds it. */
export type ClaimOutcome = 'claimed' | 'held' | 'busy';

/** How long a claim waits for another transaction that holds the same key before giving up. */
export const CLAIM_WAIT_MS = 2_000;

const LOCK_NOT_AVAILABLE = '55P03';

@Injectable()
export class IdempotencyRecordsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The record of a key, if it has not expired at `now`. */
  findLive(tenantId: string, key: string, now: Date, tx: PrismaTransaction = this.prisma): Promise<IdempotencyRecordRow | null> {
    return tx.idempotencyRecord.findFirst({ where: { tenantId, key, expiresAt: { gt: now } }, select: recordSelect });
  }

  /**
   * Claims a key for the transaction: inserts its record, or takes over the record of an expired
   * use, in one statement on the (tenantId, key) primary key. While another transaction holds an
   * uncommitted claim on the key, PostgreSQL makes this insert wait until that one commits (the
   * key is then `held`) or rolls back (then this one claims it); after CLAIM_WAIT_MS it is `busy`.
   * A `busy` claim leaves the transaction aborted: the caller must end it.
   */
  async claim(tenantId: string, key: string, requestHash: string, now: Date, expiresAt: Date, tx: PrismaTransaction): Promise<ClaimOutcome> {
    await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${CLAIM_WAIT_MS}`);
    let claimed: unknown[];
    try {
      claimed = await tx.$queryRaw<unknown[]>`
        INSERT INTO "IdempotencyRecord" ("tenantId", "key", "requestHash", "createdAt", "expiresAt")
        VALUES (${tenantId}::uuid, ${key}, ${requestHash}, ${now}::timestamptz, ${expiresAt}::timestamptz)
        ON CONFLICT ("tenantId", "key") DO UPDATE
          SET "requestHash" = EXCLUDED."requestHash", "status" = NULL, "responseBody" = NULL, "location" = NULL, "erasedAt" = NULL,
              "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"
          WHERE "IdempotencyRecord"."expiresAt" <= EXCLUDED."createdAt"
        RETURNING "key"`;
    } catch (error) {
      if (isLockNotAvailable(error)) return 'busy';
      throw error;
    }
    await tx.$executeRawUnsafe('SET LOCAL lock_timeout TO DEFAULT');
    return claimed.length === 1 ? 'claimed' : 'held';
  }

  /**
   * The claim of a key with its answer already made, as common table expressions for the one
   * statement that also writes the resource (`"claim"` has a row when this statement claimed the key;
   * the resource's insert is to depend on it: CLAIMED). The record is inserted only when
   * `precondition` holds (the resource will be written), or takes over an expired use of the key.
   * When another statement or transaction holds the key uncommitted, PostgreSQL makes the insert
   * wait for it, for CLAIM_WAIT_MS at most (lock_timeout set for this statement alone, before the
   * insert, by set_config in its FROM): then the statement fails with lock_not_available
   * (isLockNotAvailable). Also deletes the tenant's other expired records, as deleteExpired does.
   */
  claimAlong(
    tenantId: string,
    key: string,
    requestHash: string,
    response: RecordedResponse<unknown>,
    now: Date,
    expiresAt: Date,
    precondition: Prisma.Sql,
  ): Prisma.Sql {
    return Prisma.sql`
      "expired" AS (
        DELETE FROM "IdempotencyRecord" WHERE "tenantId" = ${tenantId}::uuid AND "expiresAt" <= ${now}::timestamptz AND "key" <> ${key}
      ),
      "claim" AS (
        INSERT INTO "IdempotencyRecord" ("tenantId", "key", "requestHash", "status", "responseBody", "location", "createdAt", "expiresAt")
        SELECT ${tenantId}::uuid, ${key}, ${requestHash}, ${response.status}::int, ${JSON.stringify(response.body)}::json, ${response.location},
          ${now}::timestamptz, ${expiresAt}::timestamptz
        FROM (SELECT set_config('lock_timeout', ${String(CLAIM_WAIT_MS)}, true)) AS "waitAtMost"
        WHERE ${precondition}
        ON CONFLICT ("tenantId", "key") DO UPDATE
          SET "requestHash" = EXCLUDED."requestHash", "status" = EXCLUDED."status", "responseBody" = EXCLUDED."responseBody",
              "location" = EXCLUDED."location", "erasedAt" = NULL, "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"
          WHERE "IdempotencyRecord"."expiresAt" <= EXCLUDED."createdAt"
        RETURNING "key"
      )`;
  }

  /** Stores the answer of a claimed key, in the transaction that claimed it. */
  async complete(tenantId: string, key: string, response: RecordedResponse<unknown>, tx: PrismaTransaction): Promise<void> {
    await tx.idempotencyRecord.update({
      where: { tenantId_key: { tenantId, key } },
      data: { status: response.status, responseBody: response.body as Prisma.InputJsonValue, location: response.location },
    });
  }

  /**
   * Deletes the tenant's records that expired at `now`. One plain DELETE: a record that another
   * transaction is taking over meanwhile is re-checked after its commit and kept, as no longer expired.
   */
  async deleteExpired(tenantId: string, now: Date): Promise<number> {
    return this.prisma.$executeRaw`DELETE FROM "IdempotencyRecord" WHERE "tenantId" = ${tenantId}::uuid AND "expiresAt" <= ${now}::timestamptz`;
  }
}

/** The condition, for the resource's insert in claimAlong's statement, that the key was claimed by it. */
export const CLAIMED = Prisma.sql`EXISTS (SELECT 1 FROM "claim")`;

/** A raw query that failed with PostgreSQL's lock_not_available (55P03), as the driver adapter reports it. */
export function isLockNotAvailable(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2010' && sqlStateOf(error) === LOCK_NOT_AVAILABLE;
}
