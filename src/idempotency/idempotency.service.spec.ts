import type { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { AppError } from '../common/errors/app-error';
import type { ClaimOutcome, IdempotencyRecordRow, IdempotencyRecordsRepository } from './idempotency-records.repository';
import type { RecordedResponse } from './idempotent-response';
import { IDEMPOTENCY_TTL_MS, IdempotencyService } from './idempotency.service';
import { hashRequest } from './request-hash';

const TENANT = 'tenant-1';
const KEY = 'key-1';
const REQUEST = { method: 'POST', path: '/api/v1/leads', body: { name: 'Ada', email: 'ada@example.com' } };
const HASH = hashRequest(REQUEST);
const ANSWER: RecordedResponse<{ lead: { id: string } }> = { status: 201, body: { lead: { id: 'lead-1' } }, location: '/api/v1/leads/lead-1' };
const STORED: IdempotencyRecordRow = {
  requestHash: HASH,
  status: 201,
  responseBody: { lead: { id: 'lead-0' } },
  location: '/api/v1/leads/lead-0',
  erasedAt: null,
};

const TX = { name: 'tx' } as unknown as PrismaTransaction;

/** The repository's slice the service uses, recording calls; the database is the map. */
class FakeRecords implements Pick<IdempotencyRecordsRepository, 'findLive' | 'claim' | 'complete' | 'deleteExpired'> {
  calls: string[] = [];
  live: IdempotencyRecordRow | null = null;
  liveInTransaction: IdempotencyRecordRow | null = null;
  outcome: ClaimOutcome = 'claimed';
  claimedUntil?: { now: Date; expiresAt: Date };
  completed?: RecordedResponse<unknown>;

  async findLive(tenantId: string, key: string, _now: Date, tx?: PrismaTransaction) {
    this.calls.push(`findLive ${tenantId} ${key}${tx === TX ? ' in tx' : ''}`);
    return tx === TX ? this.liveInTransaction : this.live;
  }

  async claim(tenantId: string, key: string, requestHash: string, now: Date, expiresAt: Date, tx: PrismaTransaction) {
    this.calls.push(`claim ${tenantId} ${key} ${requestHash === HASH ? 'hash' : 'other hash'}${tx === TX ? ' in tx' : ''}`);
    this.claimedUntil = { now, expiresAt };
    return this.outcome;
  }

  async complete(tenantId: string, key: string, response: RecordedResponse<unknown>, tx: PrismaTransaction) {
    this.calls.push(`complete ${tenantId} ${key}${tx === TX ? ' in tx' : ''}`);
    this.completed = response;
  }

  async deleteExpired(tenantId: string) {
    this.calls.push(`deleteExpired ${tenantId}`);
    return 0;
  }
}

function setUp() {
  const records = new FakeRecords();
  const transactions: string[] = [];
  const prisma = {
    async $transaction<T>(fn: (tx: PrismaTransaction) => Promise<T>): Promise<T> {
      transactions.push('begin');
      try {
        const result = await fn(TX);
        transactions.push('commit');
        return result;
      } catch (error) {
        transactions.push('rollback');
        throw error;
      }
    },
  };
  const service = new IdempotencyService(prisma as unknown as PrismaService, records as unknown as IdempotencyRecordsRepository);
  const work = jest.fn(async (_tx: PrismaTransaction) => ANSWER);
  return { records, transactions, service, work, prisma };
}

const errorCode = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof AppError ? `${error.status} ${error.code}` : String(error)),
  );

describe('IdempotencyService', () => {
  it('without a key runs the work in a transaction of its own (the resource commits with its events) and stores nothing', async () => {
    const { records, transactions, service, work } = setUp();
    expect(await service.run(TENANT, undefined, REQUEST, work)).toEqual({ ...ANSWER, replayed: false });
    expect(work).toHaveBeenCalledWith(TX);
    expect(records.calls).toEqual([]);
    expect(transactions).toEqual(['begin', 'commit']);
  });

  it('claims the key, runs the work and completes the record in one transaction, after cleaning up', async () => {
    const { records, transactions, service, work } = setUp();
    expect(await service.run(TENANT, KEY, REQUEST, work)).toEqual({ ...ANSWER, replayed: false });
    expect(records.calls).toEqual([
      `findLive ${TENANT} ${KEY}`,
      `deleteExpired ${TENANT}`,
      `claim ${TENANT} ${KEY} hash in tx`,
      `complete ${TENANT} ${KEY} in tx`,
    ]);
    expect(work).toHaveBeenCalledWith(TX);
    expect(records.completed).toEqual(ANSWER);
    expect(transactions).toEqual(['begin', 'commit']);
    expect(records.claimedUntil!.expiresAt.getTime() - records.claimedUntil!.now.getTime()).toBe(IDEMPOTENCY_TTL_MS);
    expect(IDEMPOTENCY_TTL_MS).toBe(86_400_000);
  });

  it('replays a live record of the same request without a transaction or any work', async () => {
    const { records, transactions, service, work } = setUp();
    records.live = STORED;
    expect(await service.run(TENANT, KEY, REQUEST, work)).toEqual({ status: 201, body: STORED.responseBody, location: STORED.location, replayed: true });
    expect(work).not.toHaveBeenCalled();
    expect(records.calls).toEqual([`findLive ${TENANT} ${KEY}`]);
    expect(transactions).toEqual([]);
  });

  it('answers a live record of another request with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const { records, service, work } = setUp();
    records.live = { ...STORED, requestHash: 'f'.repeat(64) };
    expect(await errorCode(service.run(TENANT, KEY, REQUEST, work))).toBe('409 IDEMPOTENCY_KEY_REUSED');
    expect(work).not.toHaveBeenCalled();
  });

  it('replays the record of a request that committed while this one waited for the claim', async () => {
    const { records, transactions, service, work } = setUp();
    records.outcome = 'held';
    records.liveInTransaction = STORED;
    expect(await service.run(TENANT, KEY, REQUEST, work)).toEqual({ status: 201, body: STORED.responseBody, location: STORED.location, replayed: true });
    expect(records.calls.slice(-1)).toEqual([`findLive ${TENANT} ${KEY} in tx`]);
    expect(work).not.toHaveBeenCalled();
    expect(transactions).toEqual(['begin', 'commit']);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED when the request that won the claim was another one', async () => {
    const { records, transactions, service, work } = setUp();
    records.outcome = 'held';
    records.liveInTransaction = { ...STORED, requestHash: '0'.repeat(64) };
    expect(await errorCode(service.run(TENANT, KEY, REQUEST, work))).toBe('409 IDEMPOTENCY_KEY_REUSED');
    expect(transactions).toEqual(['begin', 'rollback']);
  });

  it.each([
    ['the claim waited too long', 'busy' as const, null],
    ['the holder vanished', 'held' as const, null],
    ['the holder has no answer', 'held' as const, { ...STORED, status: null, responseBody: null, location: null }],
  ])('answers 409 IDEMPOTENCY_KEY_IN_USE when %s, and rolls back', async (_, outcome, holder) => {
    const { records, transactions, service, work } = setUp();
    records.outcome = outcome;
    records.liveInTransaction = holder;
    expect(await errorCode(service.run(TENANT, KEY, REQUEST, work))).toBe('409 IDEMPOTENCY_KEY_IN_USE');
    expect(work).not.toHaveBeenCalled();
    expect(transactions).toEqual(['begin', 'rollback']);
  });

  it('stores nothing when the work fails: the claim is rolled back with it', async () => {
    const { records, transactions, service, work } = setUp();
    work.mockRejectedValueOnce(new AppError('VALIDATION_ERROR', 'bad botId'));
    expect(await errorCode(service.run(TENANT, KEY, REQUEST, work))).toBe('400 VALIDATION_ERROR');
    expect(records.completed).toBeUndefined();
    expect(transactions).toEqual(['begin', 'rollback']);
  });
});
