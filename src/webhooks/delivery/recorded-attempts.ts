import { Prisma } from '../../generated/prisma/client';

/** The outcome of one attempt, as the delivery row records it. */
export interface AttemptRecord {
  status: 'pending' | 'succeeded' | 'failed';
  attemptedAt: Date;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** A finished attempt waiting to be written, with the delivery it belongs to. */
export interface FinishedAttempt {
  deliveryId: string;
  attempt: AttemptRecord;
}

/**
 * The UPDATE that records several finished attempts at once, each with its own outcome, and
 * releases their leases: one statement for a batch instead of one per attempt (each statement
 * cost the worker a Prisma query plan and a round trip; with one endpoint those were most of the
 * CPU the outbox took from lead creation). The rows come as parallel arrays (unnest), one
 * parameter per column whatever the batch's size. Used as a common table expression, so that
 * the claim that follows can go in the same statement (DeliveryQueueRepository.claimDue).
 */
export function recordAttemptsSql(finished: readonly FinishedAttempt[]): Prisma.Sql {
  const column = <T>(value: (attempt: AttemptRecord) => T) => finished.map(({ attempt }) => value(attempt));
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return Prisma.sql`
    UPDATE "WebhookDelivery" d SET "status" = r."status"::"WebhookDeliveryStatus", "attempts" = d."attempts" + 1,
      "lastAttemptAt" = r."attemptedAt", "nextAttemptAt" = r."nextAttemptAt", "lastResponseStatus" = r."responseStatus",
      "lastResponseBody" = r."responseBody", "lastError" = r."error", "lastDurationMs" = r."durationMs", "leaseUntil" = NULL, "updatedAt" = now()
    FROM unnest(
      ${finished.map(({ deliveryId }) => deliveryId)}::uuid[], ${column((a) => a.status)}::text[],
      ${column((a) => iso(a.attemptedAt))}::timestamptz[], ${column((a) => iso(a.nextAttemptAt))}::timestamptz[],
      ${column((a) => a.responseStatus)}::int[], ${column((a) => a.responseBody)}::text[], ${column((a) => a.error)}::text[],
      ${column((a) => a.durationMs)}::int[]
    ) AS r("id", "status", "attemptedAt", "nextAttemptAt", "responseStatus", "responseBody", "error", "durationMs")
    WHERE d."id" = r."id"
    RETURNING d."id"`;
}
