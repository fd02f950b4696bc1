import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

/** The job row of the retention sweep (BackgroundJob). */
const RETENTION_JOB = 'retention';

/** Rows one statement of the sweep deletes at most. */
export const SWEEP_BATCH_SIZE = 1_000;

/** How long webhook events and deliveries are kept (API_DECISIONS, Webhooks: 30 days). */
export const WEBHOOK_RETENTION_DAYS = 30;

/** What a sweep removes, one batch at a time, given the instant it counts from. */
export type SweepTarget = 'messages' | 'conversations' | 'leads' | 'webhookDeliveries' | 'webhookEvents' | 'idempotencyRecords' | 'auditEvents';

export const SWEEP_TARGETS: readonly SweepTarget[] = [
  'messages',
  'conversations',
  'leads',
  'webhookDeliveries',
  'webhookEvents',
  'idempotencyRecords',
  'auditEvents',
];

/**
 * The retention sweep's statements. Each deletes at most SWEEP_BATCH_SIZE rows past the cut-off,
 * picked with FOR UPDATE SKIP LOCKED, so a statement never waits on a row being written and no two
 * sweeps delete the same row.
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Takes the retention job when it is due (or at once with `force`) and no instance holds it: one
   * statement on the job's row, so of instances trying at once exactly one gets it.
   */
  async acquire(leaseMs: number, force: boolean): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO "BackgroundJob" ("name", "runAfter", "leaseUntil") VALUES (${RETENTION_JOB}, now(), now() + ${leaseMs} * interval '1 millisecond')
      ON CONFLICT ("name") DO UPDATE SET "leaseUntil" = EXCLUDED."leaseUntil"
      WHERE ("BackgroundJob"."leaseUntil" IS NULL OR "BackgroundJob"."leaseUntil" < now()) AND (${force} OR "BackgroundJob"."runAfter" <= now())
      RETURNING "name"`;
    return rows.length === 1;
  }

  async renew(leaseMs: number): Promise<void> {
    await this.prisma.$executeRaw`UPDATE "BackgroundJob" SET "leaseUntil" = now() + ${leaseMs} * interval '1 millisecond' WHERE "name" = ${RETENTION_JOB}`;
  }

  /** Gives the job back; the next run is due after `intervalMs` (or at once, after an interrupted run). */
  async finish(intervalMs: number): Promise<void> {
    await this.prisma
      .$executeRaw`UPDATE "BackgroundJob" SET "leaseUntil" = NULL, "runAfter" = now() + ${intervalMs} * interval '1 millisecond' WHERE "name" = ${RETENTION_JOB}`;
  }

  /** Deletes one batch of `target` past its cut-off at `now`; the number deleted. */
  deleteBatch(target: SweepTarget, now: Date, auditDays: number, tenantIds?: readonly string[]): Promise<number> {
    const of = (alias: string) => (tenantIds ? Prisma.sql`AND ${Prisma.raw(alias)}."tenantId" = ANY(${[...tenantIds]}::uuid[])` : Prisma.empty);
    const limit = SWEEP_BATCH_SIZE;
    // A conversation's age is that of its last message: one still going on is never cut.
    const expiredConversation = Prisma.sql`t."conversationRetentionDays" IS NOT NULL AND COALESCE(c."lastMessageAt", c."createdAt") < ${now}::timestamptz - make_interval(days => t."conversationRetentionDays")`;
    switch (target) {
      case 'messages':
        return this.prisma.$executeRaw`DELETE FROM "Message" WHERE "id" IN (
          SELECT m."id" FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId" JOIN "Tenant" t ON t."id" = c."tenantId"
          WHERE ${expiredConversation} ${of('c')} LIMIT ${limit} FOR UPDATE OF m SKIP LOCKED)`;
      case 'conversations':
        return this.prisma.$executeRaw`DELETE FROM "Conversation" WHERE "id" IN (
          SELECT c."id" FROM "Conversation" c JOIN "Tenant" t ON t."id" = c."tenantId"
          WHERE ${expiredConversation} ${of('c')} LIMIT ${limit} FOR UPDATE OF c SKIP LOCKED)`;
      case 'leads':
        return this.prisma.$executeRaw`DELETE FROM "Lead" WHERE "id" IN (
          SELECT l."id" FROM "Lead" l JOIN "Tenant" t ON t."id" = l."tenantId"
          WHERE t."leadRetentionDays" IS NOT NULL AND l."createdAt" < ${now}::timestamptz - make_interval(days => t."leadRetentionDays") ${of('l')}
          LIMIT ${limit} FOR UPDATE OF l SKIP LOCKED)`;
      case 'webhookDeliveries':
        return this.prisma.$executeRaw`DELETE FROM "WebhookDelivery" WHERE "id" IN (
          SELECT d."id" FROM "WebhookDelivery" d WHERE d."createdAt" < ${now}::timestamptz - make_interval(days => ${WEBHOOK_RETENTION_DAYS}) ${of('d')}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
      case 'webhookEvents':
        return this.prisma.$executeRaw`DELETE FROM "WebhookEvent" WHERE "id" IN (
          SELECT e."id" FROM "WebhookEvent" e WHERE e."createdAt" < ${now}::timestamptz - make_interval(days => ${WEBHOOK_RETENTION_DAYS}) ${of('e')}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
      case 'idempotencyRecords':
        return this.prisma.$executeRaw`DELETE FROM "IdempotencyRecord" WHERE ("tenantId", "key") IN (
          SELECT r."tenantId", r."key" FROM "IdempotencyRecord" r WHERE r."expiresAt" <= ${now}::timestamptz ${of('r')}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
      case 'auditEvents':
        return this.prisma.$executeRaw`DELETE FROM "AuditEvent" WHERE "id" IN (
          SELECT a."id" FROM "AuditEvent" a WHERE a."createdAt" < ${now}::timestamptz - make_interval(days => ${auditDays}) ${of('a')}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
    }
  }
}
