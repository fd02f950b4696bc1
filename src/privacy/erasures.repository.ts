import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { escapeLikePattern } from '../leads/leads.repository';
import type { Person } from './people.repository';

const erasureSelect = {
  id: true,
  status: true,
  leadCount: true,
  conversationCount: true,
  messageCount: true,
  createdAt: true,
  completedAt: true,
} satisfies Prisma.PrivacyErasureSelect;

export type ErasureRow = Prisma.PrivacyErasureGetPayload<{ select: typeof erasureSelect }>;

/** An erasure an instance has claimed: who it is about, and where it stands. */
export interface ClaimedErasure extends Person {
  id: string;
  tenantId: string;
  step: number;
}

/** Rows one step of an erasure touches at most, in one short transaction. */
export const ERASURE_BATCH_SIZE = 1_000;

@Injectable()
export class ErasuresRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tenantId: string, person: Person, messageCount: number, tx: PrismaTransaction): Promise<ErasureRow> {
    return tx.privacyErasure.create({
      data: { tenantId, ...person, leadCount: person.leadIds.length, conversationCount: person.conversationIds.length, messageCount },
      select: erasureSelect,
    });
  }

  findById(tenantId: string, erasureId: string): Promise<ErasureRow | null> {
    return this.prisma.privacyErasure.findFirst({ where: { tenantId, id: erasureId }, select: erasureSelect });
  }

  /**
   * Claims the oldest pending erasure no instance holds (or whose holder's lease ran out), with
   * a lease: the claim locks the row with SKIP LOCKED, so two instances never take the same one.
   */
  async claim(leaseMs: number, tenantIds?: readonly string[]): Promise<ClaimedErasure | null> {
    const ofTenants = tenantIds ? Prisma.sql`AND "tenantId" = ANY(${[...tenantIds]}::uuid[])` : Prisma.empty;
    const [claimed] = await this.prisma.$queryRaw<ClaimedErasure[]>`
      UPDATE "PrivacyErasure" SET "leaseUntil" = now() + ${leaseMs} * interval '1 millisecond'
      WHERE "id" = (
        SELECT "id" FROM "PrivacyErasure"
        WHERE "status" = 'pending' AND ("leaseUntil" IS NULL OR "leaseUntil" < now()) ${ofTenants}
        ORDER BY "createdAt" LIMIT 1 FOR UPDATE SKIP LOCKED
      )
      RETURNING "id"::text, "tenantId"::text, "step", "emails", "names", "visitorIds", "leadIds"::text[], "conversationIds"::text[]`;
    return claimed ?? null;
  }

  /** Records the step reached, with the batch that reached it, and renews the lease. */
  async advance(erasureId: string, step: number, leaseMs: number, tx: PrismaTransaction): Promise<void> {
    await tx.$executeRaw`UPDATE "PrivacyErasure" SET "step" = ${step}, "leaseUntil" = now() + ${leaseMs} * interval '1 millisecond' WHERE "id" = ${erasureId}::uuid`;
  }

  /** Gives an erasure back (shutdown), so another instance takes it over at once. */
  async release(erasureId: string): Promise<void> {
    await this.prisma.$executeRaw`UPDATE "PrivacyErasure" SET "leaseUntil" = NULL WHERE "id" = ${erasureId}::uuid AND "status" = 'pending'`;
  }

  /** Done: what identified the person is forgotten here too. */
  async complete(erasureId: string, tx: PrismaTransaction): Promise<void> {
    await tx.privacyErasure.update({
      where: { id: erasureId },
      data: { status: 'completed', completedAt: new Date(), leaseUntil: null, emails: [], names: [], visitorIds: [], leadIds: [], conversationIds: [] },
    });
  }

  /** Deletes up to a batch of the person's messages; their conversations' counters follow by trigger. */
  deleteMessages(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    return tx.$executeRaw`
      DELETE FROM "Message" WHERE "id" IN (
        SELECT "id" FROM "Message" WHERE "tenantId" = ${erasure.tenantId}::uuid AND "conversationId" = ANY(${erasure.conversationIds}::uuid[]) LIMIT ${ERASURE_BATCH_SIZE}
      )`;
  }

  async deleteConversations(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      DELETE FROM "Conversation" WHERE "id" IN (
        SELECT "id" FROM "Conversation" WHERE "tenantId" = ${erasure.tenantId}::uuid AND "id" = ANY(${erasure.conversationIds}::uuid[]) LIMIT ${ERASURE_BATCH_SIZE}
      ) RETURNING "id"::text`;
    return rows.map((row) => row.id);
  }

  /** The person's identified visitors (their external id, e-mail and name): all at once, one row per external id. */
  deleteVisitors(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    return tx.visitor.deleteMany({ where: { tenantId: erasure.tenantId, id: { in: erasure.visitorIds } } }).then(({ count }) => count);
  }

  async deleteLeads(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      DELETE FROM "Lead" WHERE "id" IN (
        SELECT "id" FROM "Lead" WHERE "tenantId" = ${erasure.tenantId}::uuid AND "id" = ANY(${erasure.leadIds}::uuid[]) LIMIT ${ERASURE_BATCH_SIZE}
      ) RETURNING "id"::text`;
    return rows.map((row) => row.id);
  }

  /**
   * Stored webhook payloads that hold the person (their e-mail, name as a JSON value, visitor id,
   * or the id of one of their rows) keep only the object's id; those events' deliveries lose the
   * receiver's answer, which may echo the payload. The id-only deletion events are left alone.
   */
  async redactWebhookEvents(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    const [{ count }] = await tx.$queryRaw<{ count: number }[]>`
      WITH "picked" AS (
        SELECT "id" FROM "WebhookEvent"
        WHERE "tenantId" = ${erasure.tenantId}::uuid AND "type" NOT IN ('lead.deleted', 'conversation.deleted')
          AND ("data"::jsonb -> 'redacted') IS NULL AND "data"::text ILIKE ANY(${jsonPatterns(erasure)}::text[])
        LIMIT ${ERASURE_BATCH_SIZE}
      ),
      "redacted" AS (
        UPDATE "WebhookEvent" AS event SET "data" = json_build_object('object', json_build_object('id', event."data"->'object'->'id'), 'redacted', true)
        FROM "picked" WHERE event."id" = "picked"."id"
        RETURNING event."id"
      ),
      "cleared" AS (
        UPDATE "WebhookDelivery" AS delivery SET "lastResponseBody" = NULL, "lastError" = CASE WHEN delivery."lastError" IS NULL THEN NULL ELSE 'redacted' END
        FROM "redacted" WHERE delivery."eventId" = "redacted"."id"
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM "redacted")::int AS "count", (SELECT count(*) FROM "cleared")::int AS "cleared"`;
    return count;
  }

  /** Deliveries whose recorded answer or error mentions the person, whatever event they carried. */
  redactDeliveryResponses(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    const patterns = textPatterns(erasure);
    return tx.$executeRaw`
      UPDATE "WebhookDelivery" SET "lastResponseBody" = NULL, "lastError" = 'redacted'
      WHERE "id" IN (
        SELECT "id" FROM "WebhookDelivery"
        WHERE "tenantId" = ${erasure.tenantId}::uuid AND ("lastResponseBody" ILIKE ANY(${patterns}::text[]) OR "lastError" ILIKE ANY(${patterns}::text[]))
        LIMIT ${ERASURE_BATCH_SIZE}
      )`;
  }

  /**
   * Idempotency records whose answer holds the person lose it and are marked erased: a retry with
   * the key is then refused (410), so it neither returns the erased data nor creates it again.
   */
  redactIdempotencyRecords(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    return tx.$executeRaw`
      UPDATE "IdempotencyRecord" SET "erasedAt" = now(), "status" = 410, "responseBody" = NULL, "location" = NULL
      WHERE "tenantId" = ${erasure.tenantId}::uuid AND "key" IN (
        SELECT "key" FROM "IdempotencyRecord"
        WHERE "tenantId" = ${erasure.tenantId}::uuid AND "erasedAt" IS NULL
          AND ("responseBody"::text ILIKE ANY(${jsonPatterns(erasure)}::text[]) OR "location" ILIKE ANY(${idPatterns(erasure)}::text[]))
        LIMIT ${ERASURE_BATCH_SIZE}
      )`;
  }

  /** Audit rows about the person's rows, or whose values hold the person: the action stays, the values go. */
  redactAuditEvents(erasure: ClaimedErasure, tx: PrismaTransaction): Promise<number> {
    return tx.$executeRaw`
      UPDATE "AuditEvent" SET "data" = '{"redacted": true}'::jsonb
      WHERE "id" IN (
        SELECT "id" FROM "AuditEvent"
        WHERE "tenantId" = ${erasure.tenantId}::uuid AND ("data" -> 'redacted') IS NULL
          AND ("targetId" = ANY(${[...erasure.leadIds, ...erasure.conversationIds]}::text[]) OR "data"::text ILIKE ANY(${jsonPatterns(erasure)}::text[]))
        LIMIT ${ERASURE_BATCH_SIZE}
      )`;
  }
}

const contains = (text: string) => `%${escapeLikePattern(text)}%`;

function idPatterns(person: Person): string[] {
  return [...person.leadIds, ...person.conversationIds].map(contains);
}

/**
 * What marks a JSON document as holding the person: the e-mail or visitor id anywhere, a name as a
 * whole JSON string (a short name inside other words is someone else's text), the id of one of their rows.
 */
function jsonPatterns(person: Person): string[] {
  return [
    ...person.emails.map(contains),
    ...person.visitorIds.map(contains),
    ...person.names.map((name) => contains(JSON.stringify(name))),
    ...idPatterns(person),
  ];
}

/** In free text (a receiver's answer): the e-mail, visitor id or name anywhere. */
function textPatterns(person: Person): string[] {
  return [...person.emails, ...person.visitorIds, ...person.names].map(contains);
}
