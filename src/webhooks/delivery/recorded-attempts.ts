import { Prisma } from '../../generated/prisma/client';
import { endpointHealthSql, endpointOutcomes } from './endpoint-health';

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
  endpointId: string;
  attempt: AttemptRecord;
}

/**
 * Whether a privacy erasure of the delivery's tenant ran while the attempt did, or after it began
 * (API_DECISIONS part 4): begun and not completed when the attempt started, or begun since. The
 * answer may then echo what the erasure removes, and had it been recorded before the erasure's
 * step that redacts answers, it would have been redacted: it is not stored (ErasureWorker).
 * `tenantId` and `startedAt` are SQL expressions of the row being recorded.
 */
export function erasureOverlaps(tenantId: Prisma.Sql, startedAt: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "PrivacyErasure" x WHERE x."tenantId" = ${tenantId} AND (x."completedAt" IS NULL OR x."completedAt" > ${startedAt}))`;
}

/**
 * The UPDATE that records several finished attempts at once, each with its own outcome, and
 * releases their leases: one statement for a batch instead of one per attempt (each statement
 * cost the worker a Prisma query plan and a round trip; with one endpoint those were most of the
 * CPU the outbox took from lead creation). The rows come as parallel arrays (unnest), one
 * parameter per column whatever the batch's size. Common table expressions, so that the claim
 * that follows can go in the same statement (DeliveryQueueRepository.claimDue): "recorded" (the
 * ids written), "unrecorded" (the ids not written whose rows still exist) and "endpoint_health"
 * (the endpoints' runs of unreachable attempts and pauses, endpointHealthSql).
 *
 * It never waits for a row lock: it writes the rows it can lock at once (SKIP LOCKED) and leaves
 * the others in "unrecorded", for the worker's next poll. Waiting deadlocked with an endpoint's
 * deletion (bench/webhooks.mjs saw DELETE /webhooks/:id answer 500, "deadlock detected"): the
 * deletion's cascade removes the endpoint's deliveries in its own order and waits for the rows
 * this statement (or the claim beside it) holds, while this one waited for a row the cascade had
 * removed. A row locked by a deletion is either gone at the next poll (its outcome goes with it,
 * nothing is resurrected) or, if the deletion rolled back, recorded then.
 */
export function recordAttemptsSql(finished: readonly FinishedAttempt[]): Prisma.Sql {
  const column = <T>(value: (attempt: AttemptRecord) => T) => finished.map(({ attempt }) => value(attempt));
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const ids = finished.map(({ deliveryId }) => deliveryId);
  return Prisma.sql`
    "recordable" AS (SELECT "id" FROM "WebhookDelivery" WHERE "id" = ANY(${ids}::uuid[]) FOR NO KEY UPDATE SKIP LOCKED),
    "recorded" AS (
      UPDATE "WebhookDelivery" d SET "status" = r."status"::"WebhookDeliveryStatus", "attempts" = d."attempts" + 1,
        "lastAttemptAt" = r."attemptedAt", "nextAttemptAt" = r."nextAttemptAt", "lastResponseStatus" = r."responseStatus",
        "lastResponseBody" = CASE WHEN ${erasureOverlaps(Prisma.sql`d."tenantId"`, Prisma.sql`r."attemptedAt" - r."durationMs" * interval '1 millisecond'`)} THEN NULL ELSE r."responseBody" END, "lastError" = r."error", "lastDurationMs" = r."durationMs", "leaseUntil" = NULL, "updatedAt" = now()
      FROM unnest(
        ${ids}::uuid[], ${column((a) => a.status)}::text[],
        ${column((a) => iso(a.attemptedAt))}::timestamptz[], ${column((a) => iso(a.nextAttemptAt))}::timestamptz[],
        ${column((a) => a.responseStatus)}::int[], ${column((a) => a.responseBody)}::text[], ${column((a) => a.error)}::text[],
        ${column((a) => a.durationMs)}::int[]
      ) AS r("id", "status", "attemptedAt", "nextAttemptAt", "responseStatus", "responseBody", "error", "durationMs")
      WHERE d."id" = r."id" AND d."id" IN (SELECT "id" FROM "recordable")
      RETURNING d."id"
    ),
    "unrecorded" AS (SELECT "id" FROM "WebhookDelivery" WHERE "id" = ANY(${ids}::uuid[]) AND "id" NOT IN (SELECT "id" FROM "recorded")),
    ${endpointHealthSql(endpointOutcomes(finished))}`;
}
