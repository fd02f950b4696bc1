import { Prisma } from '../../generated/prisma/client';

/** What of an attempt's record its endpoint's health reads (an AttemptRecord). */
interface AttemptOutcome {
  status: string;
  responseStatus: number | null;
  error: string | null;
}

/** Unreachable attempts in a row (timed out or no connection) that pause an endpoint (API_DECISIONS part 4). */
export const UNREACHABLE_ATTEMPTS_TO_PAUSE = 5;
export const FIRST_PAUSE_MS = 60_000;
export const LONGEST_PAUSE_MS = 3_600_000;

/**
 * What a batch of an endpoint's attempts, in the order they ended, does to its health: whether one
 * succeeded (which clears the pause and its doubling), whether the run of unreachable attempts
 * stored goes on (no success or HTTP answer in the batch), and how many unreachable attempts end it.
 */
export interface EndpointOutcome {
  endpointId: string;
  succeeded: boolean;
  continuesRun: boolean;
  unreachable: number;
}

/** An attempt that got no HTTP answer: it timed out, or could not connect. */
export function isUnreachable(attempt: AttemptOutcome): boolean {
  return attempt.responseStatus === null && attempt.error !== null;
}

/** Folds attempts (in the order they ended) into one outcome per endpoint. */
export function endpointOutcomes(attempts: readonly { endpointId: string; attempt: AttemptOutcome }[]): EndpointOutcome[] {
  const outcomes = new Map<string, EndpointOutcome>();
  for (const { endpointId, attempt } of attempts) {
    const outcome = outcomes.get(endpointId) ?? { endpointId, succeeded: false, continuesRun: true, unreachable: 0 };
    if (isUnreachable(attempt)) {
      outcome.unreachable++;
    } else {
      outcome.continuesRun = false;
      outcome.unreachable = 0;
      if (attempt.status === 'succeeded') outcome.succeeded = true;
    }
    outcomes.set(endpointId, outcome);
  }
  return [...outcomes.values()];
}

/**
 * Common table expressions that apply the outcomes to the endpoints: "endpoint_health" (the ids
 * updated, with whether each is paused now). An endpoint whose run reaches
 * UNREACHABLE_ATTEMPTS_TO_PAUSE while not paused is paused for FIRST_PAUSE_MS doubled by its
 * pauses since the last success, at most LONGEST_PAUSE_MS; the run is kept, so the first attempt
 * after a pause that is unreachable again pauses it at once, for twice as long.
 *
 * Like the delivery rows (recordAttemptsSql), an endpoint row locked elsewhere (being changed or
 * deleted) is skipped rather than waited for: waiting could deadlock with a deletion. Its outcome
 * is then lost, which only delays or shortens a pause.
 */
export function endpointHealthSql(outcomes: readonly EndpointOutcome[]): Prisma.Sql {
  const ids = outcomes.map(({ endpointId }) => endpointId);
  const next = Prisma.sql`CASE WHEN o."continuesRun" THEN e."unreachableStreak" ELSE 0 END + o."unreachable"`;
  const pausesBefore = Prisma.sql`CASE WHEN o."succeeded" THEN 0 ELSE e."pauses" END`;
  const pausing = Prisma.sql`(o."unreachable" > 0 AND ${next} >= ${UNREACHABLE_ATTEMPTS_TO_PAUSE} AND (e."pausedUntil" IS NULL OR e."pausedUntil" <= now()))`;
  return Prisma.sql`
    "endpoint_outcome" AS (
      SELECT * FROM unnest(${ids}::uuid[], ${outcomes.map((o) => o.succeeded)}::boolean[], ${outcomes.map((o) => o.continuesRun)}::boolean[],
        ${outcomes.map((o) => o.unreachable)}::int[]) AS o("id", "succeeded", "continuesRun", "unreachable")
    ),
    "endpoint_lockable" AS (SELECT "id" FROM "WebhookEndpoint" WHERE "id" = ANY(${ids}::uuid[]) FOR NO KEY UPDATE SKIP LOCKED),
    "endpoint_health" AS (
      UPDATE "WebhookEndpoint" e SET "unreachableStreak" = ${next},
        "pauses" = ${pausesBefore} + CASE WHEN ${pausing} THEN 1 ELSE 0 END,
        "pausedUntil" = CASE
          WHEN ${pausing} THEN now() + least(${FIRST_PAUSE_MS}::float8 * power(2, least(${pausesBefore}, 30)), ${LONGEST_PAUSE_MS}::float8) * interval '1 millisecond'
          WHEN o."succeeded" THEN NULL ELSE e."pausedUntil" END
      FROM "endpoint_outcome" o
      WHERE e."id" = o."id" AND e."id" IN (SELECT "id" FROM "endpoint_lockable")
      RETURNING e."id", coalesce(e."pausedUntil" > now(), false) AS "paused"
    )`;
}
