import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { Prisma } from '../generated/prisma/client';
import { CLAIMED, IdempotencyRecordRow, IdempotencyRecordsRepository, isLockNotAvailable } from './idempotency-records.repository';
import type { IdempotentResponse, RecordedResponse } from './idempotent-response';
import { hashRequest, IdempotentRequest } from './request-hash';

/** How long an answer is replayed to the same key (Stripe keeps keys for 24 hours too). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

@Injectable()
export class IdempotencyService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly records: IdempotencyRecordsRepository,
  ) {}

  /**
   * Runs a create once per tenant and Idempotency-Key, and answers a retry with the stored answer.
   * Without a key, `work` simply runs, in a transaction of its own unless it is `oneStatement`.
   * The caller has already passed every earlier check (key, plan, rate limit, scope, body
   * validation), so nothing invalid is looked up or stored.
   *
   * The ordering is what makes it safe with several instances on one database:
   * 1. A live record of the key answers at once: its stored answer when the request hash matches,
   *    409 IDEMPOTENCY_KEY_REUSED otherwise.
   * 2. The tenant's expired records are deleted (cheap, indexed cleanup; the key may be reused).
   * 3. In one transaction, the key is claimed by an insert on the (tenantId, key) primary key, then
   *    `work` runs on that transaction and the record is completed with its answer. The database
   *    serialises claims: a concurrent request with the same key waits for the first to commit
   *    and then answers as in 1, or after CLAIM_WAIT_MS answers 409 IDEMPOTENCY_KEY_IN_USE. The
   *    resource and its record commit together or not at all, so an error in `work` (a 4xx such as
   *    an unknown botId, or a 5xx) stores nothing and the same key may be retried.
   */
  async run<T>(
    tenantId: string,
    key: string | undefined,
    request: IdempotentRequest,
    work: (tx: PrismaTransaction) => Promise<RecordedResponse<T>>,
    { oneStatement = false }: { oneStatement?: boolean } = {},
  ): Promise<IdempotentResponse<T>> {
    // Without a key, work still runs in a transaction (a resource commits together with its
    // events), unless it writes with one statement, which is atomic by itself.
    if (key === undefined) return { ...(await (oneStatement ? work(this.prisma) : this.prisma.$transaction(work))), replayed: false };
    const requestHash = hashRequest(request);
    const now = new Date();
    const live = await this.records.findLive(tenantId, key, now);
    if (live) return replay<T>(live, requestHash);
    await this.records.deleteExpired(tenantId, now);

    return this.prisma.$transaction(async (tx) => {
      const outcome = await this.records.claim(tenantId, key, requestHash, now, new Date(now.getTime() + IDEMPOTENCY_TTL_MS), tx);
      if (outcome === 'busy') throw keyInUse();
      if (outcome === 'held') {
        const holder = await this.records.findLive(tenantId, key, now, tx);
        if (!holder) throw keyInUse();
        return replay<T>(holder, requestHash);
      }
      const answer = await work(tx);
      await this.records.complete(tenantId, key, answer, tx);
      return { ...answer, replayed: false };
    });
  }

  /**
   * run() for a create written by one statement whose answer is known before it runs (its values
   * are made in the app): the key is claimed, the resource written and the answer stored by that
   * one statement, without a transaction, the live-record read or the cleanup's own round trip
   * (an idempotent create cost 1.8x a plain one's service CPU in nine round trips; now one). Same
   * outcomes as run(): a concurrent holder of the key is waited for (CLAIM_WAIT_MS at most, then
   * 409 IDEMPOTENCY_KEY_IN_USE); a live record is replayed, or refused (another request, erased).
   * `write` returns whether the resource was written; when it was not and no live record has the
   * key, its precondition failed: `refusal` is thrown (an unknown botId, say), and nothing is stored.
   */
  async runAlong<T>(
    tenantId: string,
    key: string | undefined,
    request: IdempotentRequest,
    answer: RecordedResponse<T>,
    write: (claim: ClaimAlong | undefined) => Promise<boolean>,
    refusal: () => Error,
  ): Promise<IdempotentResponse<T>> {
    if (key === undefined) {
      if (!(await write(undefined))) throw refusal();
      return { ...answer, replayed: false };
    }
    const requestHash = hashRequest(request);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
    const claim: ClaimAlong = {
      ctes: (precondition) => this.records.claimAlong(tenantId, key, requestHash, answer, now, expiresAt, precondition),
      claimed: CLAIMED,
    };
    let written: boolean;
    try {
      written = await write(claim);
    } catch (error) {
      if (isLockNotAvailable(error)) throw keyInUse();
      throw error;
    }
    if (written) return { ...answer, replayed: false };
    // Not written: the key is held by a committed record (replayed as in run(), before any refusal
    // of the request itself, as run() reads it first), or the precondition failed.
    const live = await this.records.findLive(tenantId, key, now);
    if (live) return replay<T>(live, requestHash);
    throw refusal();
  }
}

/**
 * What runAlong's `write` gets with a key: the common table expressions that claim it (to put
 * first in its statement's WITH, given the condition under which the resource will be written) and
 * the condition its insert must add (the key was claimed by this statement).
 */
export interface ClaimAlong {
  ctes(precondition: Prisma.Sql): Prisma.Sql;
  claimed: Prisma.Sql;
}

function replay<T>(record: IdempotencyRecordRow, requestHash: string): IdempotentResponse<T> {
  if (record.requestHash !== requestHash) {
    throw new AppError(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      'This Idempotency-Key was already used with a different request in the last 24 hours. Use a new key for a new request.',
    );
  }
  if (record.erasedAt) {
    throw new AppError(
      ErrorCode.IDEMPOTENCY_RECORD_ERASED,
      'The answer to this Idempotency-Key held personal data that has since been erased; it is not replayed, and nothing is created again.',
    );
  }
  // A committed record always has its answer (it is completed in the claiming transaction).
  if (record.status === null) throw keyInUse();
  return { status: record.status, body: record.responseBody as T, location: record.location, replayed: true };
}

function keyInUse(): AppError {
  return new AppError(ErrorCode.IDEMPOTENCY_KEY_IN_USE, 'A request with this Idempotency-Key is still being processed. Retry shortly.');
}
