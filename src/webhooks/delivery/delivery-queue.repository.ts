import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { endpointHealthSql, endpointOutcomes } from './endpoint-health';
import { AttemptRecord, erasureOverlaps, FinishedAttempt, recordAttemptsSql } from './recorded-attempts';

/** A claimed delivery with what sending it needs, returned by the claim itself. */
export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
  attempts: number;
  createdAt: Date;
  /** `data` is the stored JSON text, sent as it is (not parsed and serialized again per attempt). */
  event: { id: string; type: string; data: string; createdAt: Date };
  endpoint: { url: string; secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null; enabled: boolean };
}

export type { AttemptRecord, FinishedAttempt };

/** A claimed row as the claim statement returns it, flat. */
interface ClaimedRow {
  id: string;
  tenantId: string;
  endpointId: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
  eventId: string;
  eventType: string;
  eventData: string;
  eventCreatedAt: Date;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
}

/** What the claim tells besides its rows, carried by every row (one row of nulls when nothing is claimed). */
interface ClaimSummary {
  unrecorded: string[];
  paused: string[];
  waiting: string[];
  unpicked: number;
  lastTenant: string | null;
}

type ClaimResultRow = { [K in keyof ClaimedRow]: ClaimedRow[K] | null } & ClaimSummary;

/** What one claim took and what it learned of the queue. */
export interface Claim {
  claimed: ClaimedDelivery[];
  /** More may be claimable now: endpoints with due deliveries were left out for want of slots in the statement. */
  more: boolean;
  /** Finished attempts whose rows were locked by another transaction: to record at the next poll. */
  unrecorded: string[];
  /** Endpoints the attempts recorded have paused: their deliveries claimed ahead are not to be sent. */
  paused: string[];
  /** Tenants with due deliveries this instance has room for and did not claim (no free slot went to them). */
  waiting: string[];
  /** The tenant the last slot went to: the next claim starts the round after it. */
  lastTenant?: string;
}

/**
 * What one instance may still take: free slots, and the caps per endpoint and per tenant against
 * what it is sending already (endpoint or tenant id to attempts in flight).
 */
export interface ClaimRoom {
  slots: number;
  perEndpoint: number;
  perTenant: number;
  endpointsInFlight: ReadonlyMap<string, number>;
  tenantsInFlight: ReadonlyMap<string, number>;
  /** The tenant the previous claim's last slot went to: ties in the round go to the tenants after it. */
  after?: string;
}

/** `(id, attempts in flight)` rows for a VALUES list; one row that matches nothing when empty. */
function inFlightRows(counts: ReadonlyMap<string, number>): Prisma.Sql {
  if (!counts.size) return Prisma.sql`(NULL::uuid, 0)`;
  return Prisma.join([...counts].map(([id, count]) => Prisma.sql`(${id}::uuid, ${count}::int)`));
}

/**
 * Recorded for an attempt whose instance stopped before recording it: a lease that ran out (an
 * attempt recorded, or a delivery given back, clears it), found by the instance that claims it next.
 */
export const INTERRUPTED = 'interrupted: the delivering instance stopped';

/**
 * The delivery queue as the workers see it. Claims are one UPDATE over a `FOR UPDATE SKIP LOCKED`
 * selection, so instances never claim the same row at once, and a lease: a delivery whose
 * instance died is claimed again once its lease has passed. (Raw SQL: the typed API cannot say
 * SKIP LOCKED; STYLE.md.)
 */
@Injectable()
export class DeliveryQueueRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims due deliveries fairly (API_DECISIONS part 4): the free slots go round the tenants with
   * due deliveries, fewest held on this instance first, before any tenant gets another turn; ties
   * go to the tenants after the one the previous claim ended with (`room.after`), so a tenant whose
   * attempts end quickly cannot keep the head of the round. Endpoints and tenants at their cap on
   * this instance are passed over, the others get at most their remaining room, each endpoint its
   * oldest events first (event order). Paused and disabled endpoints are passed over, their
   * deliveries untouched (a pause does not use up their attempts).
   *
   * The endpoints with pending deliveries are found one index probe each (a loose scan of the
   * (status, endpointId, nextAttemptAt) index, a recursive CTE: retries scheduled for later are
   * jumped over, not read), then whether each has one due by one more probe; not by reading the
   * oldest due deliveries of every tenant: a window of those was all one backlog's, and another tenant's
   * event waited behind it for over a minute when ten tenants' receivers hung (issue 32). Each
   * chosen endpoint's deliveries are then read and locked (SKIP LOCKED) by a LATERAL subquery; the
   * window functions rank rows those have locked (Postgres allows no FOR UPDATE beside them).
   *
   * One statement per poll, whatever it carries: `finished`, the attempts that ended since the last
   * poll, are recorded in it first (recordAttemptsSql, with their endpoints' health), and the
   * claimed rows come back with their event and endpoint (the event's JSON as text), so that a busy
   * endpoint costs one round trip per poll rather than a claim, a read of what was claimed, and one
   * update per attempt. The rows being recorded are still leased in the statement's snapshot, and
   * are excluded by id as well, so the claim never takes one of them again; an endpoint the
   * recorded attempts pause is excluded too.
   *
   * The statement never waits for a row lock (the claim and the record both skip locked rows), so
   * it cannot deadlock with an endpoint's deletion cascading to its deliveries.
   */
  async claimDue(room: ClaimRoom, leaseMs: number, tenantIds?: readonly string[], finished: readonly FinishedAttempt[] = []): Promise<Claim> {
    const slots = Math.max(0, room.slots);
    const scope = tenantIds ? Prisma.sql`AND d."tenantId"::text IN (${Prisma.join(tenantIds.length ? [...tenantIds] : [''])})` : Prisma.empty;
    const recorded = finished.length ? Prisma.sql`${recordAttemptsSql(finished)},` : Prisma.empty;
    const notRecorded = finished.length ? Prisma.sql`AND d."id" <> ALL(${finished.map(({ deliveryId }) => deliveryId)}::uuid[])` : Prisma.empty;
    const notPausedNow = finished.length ? Prisma.sql`AND e."id" NOT IN (SELECT "id" FROM "endpoint_health" WHERE "paused")` : Prisma.empty;
    const due = Prisma.sql`d."status" = 'pending' AND d."nextAttemptAt" <= now() AND (d."leaseUntil" IS NULL OR d."leaseUntil" < now()) ${scope}`;
    const after = room.after ?? '';
    const ctes = Prisma.sql`
      WITH RECURSIVE ${recorded} endpoint_busy ("id", "inFlight") AS (VALUES ${inFlightRows(room.endpointsInFlight)}),
      tenant_busy ("id", "inFlight") AS (VALUES ${inFlightRows(room.tenantsInFlight)}),
      pending_endpoint ("id") AS (
        (SELECT d."endpointId" FROM "WebhookDelivery" d WHERE d."status" = 'pending' ${scope} ORDER BY d."endpointId" LIMIT 1)
        UNION ALL
        SELECT (SELECT d."endpointId" FROM "WebhookDelivery" d WHERE d."status" = 'pending' ${scope} AND d."endpointId" > p."id" ORDER BY d."endpointId" LIMIT 1)
        FROM pending_endpoint p WHERE p."id" IS NOT NULL
      ),
      endpoint_room AS (
        SELECT e."id", e."tenantId", coalesce(tb."inFlight", 0) AS "tenantHeld",
          least(${room.perEndpoint} - coalesce(eb."inFlight", 0), ${room.perTenant} - coalesce(tb."inFlight", 0)) AS "room"
        FROM pending_endpoint p JOIN "WebhookEndpoint" e ON e."id" = p."id"
          LEFT JOIN endpoint_busy eb ON eb."id" = e."id" LEFT JOIN tenant_busy tb ON tb."id" = e."tenantId"
        WHERE e."enabled" AND (e."pausedUntil" IS NULL OR e."pausedUntil" <= now()) ${notPausedNow}
          AND EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."endpointId" = e."id" AND ${due})
      ),
      endpoint_turn AS (
        SELECT r.*, r."tenantHeld" + row_number() OVER (PARTITION BY r."tenantId" ORDER BY r."id") AS "turn"
        FROM endpoint_room r WHERE r."room" > 0
      ),
      endpoint_pick AS (
        SELECT * FROM endpoint_turn ORDER BY "turn", ("tenantId"::text <= ${after}), "tenantId", "id" LIMIT ${slots}
      ),
      candidate AS (
        SELECT c.*, k."tenantHeld" FROM endpoint_pick k CROSS JOIN LATERAL (
          SELECT d."id", d."tenantId", d."endpointId", d."nextAttemptAt", d."eventId" FROM "WebhookDelivery" d
          WHERE d."endpointId" = k."id" AND ${due} ${notRecorded}
          ORDER BY d."nextAttemptAt", d."eventId"
          LIMIT least(k."room", ${slots})
          FOR UPDATE SKIP LOCKED
        ) c
      ),
      per_endpoint AS (
        SELECT c.*, row_number() OVER (PARTITION BY c."endpointId" ORDER BY c."nextAttemptAt", c."eventId") AS "endpointRank" FROM candidate c
      ),
      per_tenant AS (
        SELECT p.*, p."tenantHeld" + row_number() OVER (PARTITION BY p."tenantId" ORDER BY p."endpointRank", p."nextAttemptAt", p."eventId") AS "turn"
        FROM per_endpoint p
      ),
      chosen AS (
        SELECT p."id", p."eventId", p."endpointId", p."tenantId", row_number() OVER (ORDER BY p."turn", (p."tenantId"::text <= ${after}), p."tenantId", p."nextAttemptAt", p."eventId") AS "order"
        FROM per_tenant p WHERE p."turn" <= ${room.perTenant}
        ORDER BY "order"
        LIMIT ${slots}
      )`;
    const claim = Prisma.sql`
      UPDATE "WebhookDelivery" d SET "leaseUntil" = now() + ${leaseMs} * interval '1 millisecond',
        "attempts" = d."attempts" + CASE WHEN d."leaseUntil" IS NULL THEN 0 ELSE 1 END,
        "lastError" = CASE WHEN d."leaseUntil" IS NULL THEN d."lastError" ELSE ${INTERRUPTED} END,
        "lastResponseStatus" = CASE WHEN d."leaseUntil" IS NULL THEN d."lastResponseStatus" END
      FROM chosen JOIN "WebhookEvent" ev ON ev."id" = chosen."eventId" JOIN "WebhookEndpoint" ep ON ep."id" = chosen."endpointId"
      WHERE d."id" = chosen."id"
      RETURNING d."id"::text AS "id", d."tenantId"::text AS "tenantId", d."endpointId"::text AS "endpointId", d."attempts", d."createdAt", d."nextAttemptAt",
        ev."id"::text AS "eventId", ev."type" AS "eventType", ev."data"::text AS "eventData", ev."createdAt" AS "eventCreatedAt",
        ep."url", ep."secret", ep."previousSecret", ep."previousSecretExpiresAt", ep."enabled"`;
    const fromRecord = (cte: string, where = Prisma.empty) =>
      finished.length ? Prisma.sql`array(SELECT "id"::text FROM ${Prisma.raw(`"${cte}"`)} ${where})` : Prisma.sql`ARRAY[]::text[]`;
    // One row even when nothing is claimed, to carry what the claim learned.
    const result = await this.prisma.$queryRaw<ClaimResultRow[]>(Prisma.sql`${ctes}, "claimed" AS (${claim})
      SELECT c.*, s.* FROM (SELECT ${fromRecord('unrecorded')} AS "unrecorded", ${fromRecord('endpoint_health', Prisma.sql`WHERE "paused"`)} AS "paused",
          array(SELECT DISTINCT "tenantId"::text FROM (
            SELECT "tenantId" FROM endpoint_turn WHERE "id" NOT IN (SELECT "id" FROM endpoint_pick)
            UNION ALL SELECT "tenantId" FROM per_tenant WHERE "turn" <= ${room.perTenant} AND "id" NOT IN (SELECT "id" FROM chosen)) w) AS "waiting",
          (SELECT count(*) FROM endpoint_turn WHERE "id" NOT IN (SELECT "id" FROM endpoint_pick))::int AS "unpicked",
          (SELECT "tenantId"::text FROM chosen ORDER BY "order" DESC LIMIT 1) AS "lastTenant"
        ) s LEFT JOIN "claimed" c ON true`);
    const [{ unrecorded, paused, waiting, unpicked, lastTenant }] = result;
    const rows = result.filter((row): row is ClaimResultRow & ClaimedRow => row.id !== null);
    // Events in the order they happened: those of one transaction share their time, not their order
    // (uuid v7 ids, whose text sorts as the uuids do).
    rows.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    return {
      claimed: rows.map(claimedOf),
      // Nothing claimed: what was left out is locked by another claim, not waiting for this one.
      more: unpicked > 0 && rows.length > 0 && rows.length < slots,
      unrecorded,
      paused,
      waiting,
      lastTenant: lastTenant ?? undefined,
    };
  }

  /**
   * The endpoints among these that may be sent to now: not deleted, disabled or paused. Checked
   * before an attempt of a delivery claimed ahead starts, so that an endpoint deleted or paused on
   * another instance meanwhile is not sent to.
   */
  async sendable(endpointIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT "id"::text AS "id" FROM "WebhookEndpoint"
      WHERE "id" = ANY(${[...endpointIds]}::uuid[]) AND "enabled" AND ("pausedUntil" IS NULL OR "pausedUntil" <= now())`;
    return new Set(rows.map(({ id }) => id));
  }

  /**
   * Records finished attempts, each with its own outcome, in one statement, and releases their
   * leases (shutdown, or a poll with no free slot). Returns the ids it could not record, their rows
   * locked by another transaction (recordAttemptsSql): to record again.
   */
  async recordAttempts(finished: readonly FinishedAttempt[]): Promise<string[]> {
    if (!finished.length) return [];
    const [{ unrecorded }] = await this.prisma.$queryRaw<{ unrecorded: string[] }[]>(
      Prisma.sql`WITH ${recordAttemptsSql(finished)} SELECT array(SELECT "id"::text FROM "unrecorded") AS "unrecorded"`,
    );
    return unrecorded;
  }

  /**
   * Locks the endpoint before a final attempt is recorded and may disable it: the order an
   * endpoint's deletion takes (the endpoint, then its deliveries by cascade), so the two cannot
   * deadlock. False when the endpoint is gone, with its deliveries: nothing to record.
   */
  async lockEndpoint(endpointId: string, tx: PrismaTransaction): Promise<boolean> {
    const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "WebhookEndpoint" WHERE "id" = ${endpointId}::uuid FOR NO KEY UPDATE`;
    return rows.length > 0;
  }

  /** Records one attempt (its endpoint's health too) and releases the lease; nothing if the delivery is gone (its endpoint deleted). */
  async recordAttempt(tenantId: string, deliveryId: string, endpointId: string, attempt: AttemptRecord, tx: PrismaTransaction): Promise<void> {
    await tx.$queryRaw(Prisma.sql`WITH ${endpointHealthSql(endpointOutcomes([{ endpointId, attempt }]))} SELECT count(*)::int FROM "endpoint_health"`);
    const startedAt = new Date(attempt.attemptedAt.getTime() - attempt.durationMs);
    const [{ erasing }] = await tx.$queryRaw<{ erasing: boolean }[]>(
      Prisma.sql`SELECT ${erasureOverlaps(Prisma.sql`${tenantId}::uuid`, Prisma.sql`${startedAt}::timestamptz`)} AS "erasing"`,
    );
    await tx.webhookDelivery.updateMany({
      where: { tenantId, id: deliveryId },
      data: {
        status: attempt.status,
        attempts: { increment: 1 },
        lastAttemptAt: attempt.attemptedAt,
        nextAttemptAt: attempt.nextAttemptAt,
        lastResponseStatus: attempt.responseStatus,
        lastResponseBody: erasing ? null : attempt.responseBody,
        lastError: attempt.error,
        lastDurationMs: attempt.durationMs,
        leaseUntil: null,
      },
    });
  }

  /** Extends the leases of the attempts in flight, so that only a stopped instance's leases run out. */
  async renewLeases(deliveryIds: string[], leaseMs: number): Promise<void> {
    if (!deliveryIds.length) return;
    // Rows locked elsewhere are passed over (a lease outlasts three renewals): waiting for them
    // deadlocked with an endpoint's deletion, as recording did (recordAttemptsSql).
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE "WebhookDelivery" SET "leaseUntil" = now() + ${leaseMs} * interval '1 millisecond'
      WHERE "id" IN (
        SELECT "id" FROM "WebhookDelivery"
        WHERE "id" IN (${Prisma.join(deliveryIds.map((id) => Prisma.sql`${id}::uuid`))}) AND "status" = 'pending' AND "leaseUntil" IS NOT NULL
        FOR NO KEY UPDATE SKIP LOCKED)`);
  }

  /** Gives claimed deliveries back at once (shutdown), for another instance to send. */
  async release(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length) await this.prisma.webhookDelivery.updateMany({ where: { id: { in: deliveryIds }, status: 'pending' }, data: { leaseUntil: null } });
  }

  /** Disables an endpoint (`gone`, `failing`) unless it is already disabled; true when it was enabled. */
  async disableEndpoint(tenantId: string, endpointId: string, reason: 'gone' | 'failing', tx: PrismaTransaction): Promise<boolean> {
    const { count } = await tx.webhookEndpoint.updateMany({
      where: { tenantId, id: endpointId, enabled: true },
      data: { enabled: false, disabledReason: reason },
    });
    return count > 0;
  }

  /**
   * Whether every delivery of the endpoint in the last `windowMs` failed and the failing started
   * at least that long ago: no success since, and a failed delivery created before it.
   */
  async failingSince(tenantId: string, endpointId: string, windowMs: number, now: Date, tx: PrismaTransaction): Promise<boolean> {
    const since = new Date(now.getTime() - windowMs);
    const succeeded = await tx.webhookDelivery.count({ where: { tenantId, endpointId, status: 'succeeded', lastAttemptAt: { gte: since } } });
    if (succeeded > 0) return false;
    return (await tx.webhookDelivery.count({ where: { tenantId, endpointId, status: 'failed', createdAt: { lte: since } } })) > 0;
  }
}

function claimedOf(row: ClaimedRow): ClaimedDelivery {
  return {
    id: row.id,
    tenantId: row.tenantId,
    endpointId: row.endpointId,
    attempts: row.attempts,
    createdAt: row.createdAt,
    event: { id: row.eventId, type: row.eventType, data: row.eventData, createdAt: row.eventCreatedAt },
    endpoint: {
      url: row.url,
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretExpiresAt: row.previousSecretExpiresAt,
      enabled: row.enabled,
    },
  };
}
