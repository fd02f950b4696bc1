import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { PrismaTransaction } from '../database/prisma.service';
import { MessageQuota, USAGE_CACHE_TTL_MS } from './message-quota';
import type { MessageQuotaRepository, MonthUsage, ReplyCounts, ReplyLimits } from './message-quota.repository';

/** The repository's two statements over an in-memory count, recording each read. */
class FakeUsage implements Pick<MessageQuotaRepository, 'count' | 'take'> {
  counts = new Map<string, number>();
  reads: string[] = [];
  pendingReads: Array<() => void> = [];
  holdReads = false;

  async count(tenantId: string, month: Date): Promise<MonthUsage> {
    const key = `${tenantId}:${month.toISOString().slice(0, 7)}`;
    this.reads.push(key);
    if (this.holdReads) await new Promise<void>((resolve) => this.pendingReads.push(resolve));
    return { count: this.counts.get(key) ?? 0, widgetDay: null, widgetDayCount: 0 };
  }

  async take(tenantId: string, limits: ReplyLimits, now: Date): Promise<ReplyCounts | undefined> {
    const key = `${tenantId}:${now.toISOString().slice(0, 7)}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= limits.month) return undefined;
    this.counts.set(key, count + 1);
    return { count: count + 1, widgetDayCount: 0 };
  }
}

const tx = {} as PrismaTransaction;
const counted = (count: number): ReplyCounts => ({ count, widgetDayCount: 0 });
const at = (iso: string) => new Date(iso);

function quotaOver(usage: FakeUsage): MessageQuota {
  return new MessageQuota(usage as unknown as MessageQuotaRepository);
}

describe('MessageQuota', () => {
  it('reads a month once per second per tenant, and reports the count a stored reply left without reading it', async () => {
    const usage = new FakeUsage();
    const quota = quotaOver(usage);
    usage.counts.set('t1:2026-03', 4);
    expect(await quota.usedThisMonth('t1', at('2026-03-10T12:00:00.000Z'))).toBe(4);
    usage.counts.set('t1:2026-03', 5);
    expect(await quota.usedThisMonth('t1', at('2026-03-10T12:00:00.500Z'))).toBe(4);
    expect(await quota.usedThisMonth('t2', at('2026-03-10T12:00:00.500Z'))).toBe(0);
    expect(await quota.usedThisMonth('t1', new Date(at('2026-03-10T12:00:00.000Z').getTime() + USAGE_CACHE_TTL_MS))).toBe(5);
    usage.counts.set('t1:2026-03', 6);
    quota.remember('t1', counted(6), at('2026-03-10T12:00:01.100Z'));
    expect(await quota.usedThisMonth('t1', at('2026-03-10T12:00:01.100Z'))).toBe(6);
    expect(usage.reads).toEqual(['t1:2026-03', 't2:2026-03', 't1:2026-03']);
  });

  it('counts a new month from its own row', async () => {
    const usage = new FakeUsage();
    const quota = quotaOver(usage);
    usage.counts.set('t1:2026-03', 9);
    expect(await quota.usedThisMonth('t1', at('2026-03-31T23:59:59.900Z'))).toBe(9);
    expect(await quota.usedThisMonth('t1', at('2026-04-01T00:00:00.000Z'))).toBe(0);
  });

  it('shares one read among callers that miss together; a caller after a stored reply gets its count', async () => {
    const usage = new FakeUsage();
    const quota = quotaOver(usage);
    usage.holdReads = true;
    const now = at('2026-03-10T12:00:00.000Z');
    const together = [quota.usedThisMonth('t1', now), quota.usedThisMonth('t1', now)];
    quota.remember('t1', counted(3), now);
    const after = quota.usedThisMonth('t1', now);
    usage.pendingReads.splice(0).forEach((resolve) => resolve());
    expect(await Promise.all([...together, after])).toEqual([0, 0, 3]);
    expect(usage.reads).toHaveLength(1);
  });

  it('does not keep a count read before a stored reply', async () => {
    const usage = new FakeUsage();
    const quota = quotaOver(usage);
    usage.holdReads = true;
    const now = at('2026-03-10T12:00:00.000Z');
    const before = quota.usedThisMonth('t1', now);
    quota.remember('t1', counted(1), now);
    usage.pendingReads.splice(0).forEach((resolve) => resolve());
    expect(await before).toBe(0);
    expect(await quota.usedThisMonth('t1', now)).toBe(1);
    expect(usage.reads).toHaveLength(1);
  });

  it('keeps the highest count when replies commit out of order', async () => {
    const quota = quotaOver(new FakeUsage());
    const now = at('2026-03-10T12:00:00.000Z');
    quota.remember('t1', counted(8), now);
    quota.remember('t1', counted(7), now);
    expect(await quota.usedThisMonth('t1', now)).toBe(8);
  });

  it('refuses at the limit with 429 MESSAGE_LIMIT_REACHED and Retry-After up to the next month (UTC)', async () => {
    const usage = new FakeUsage();
    const quota = quotaOver(usage);
    const now = at('2026-03-31T23:59:58.500Z');
    await quota.check('t1', { month: 1 }, now);
    quota.remember('t1', await quota.take('t1', { month: 1 }, now, tx), now);
    for (const refusal of [quota.check('t1', { month: 1 }, now), quota.take('t1', { month: 1 }, now, tx)]) {
      const error = (await refusal.catch((caught: unknown) => caught)) as AppError;
      expect(error).toBeInstanceOf(AppError);
      expect(error.code).toBe(ErrorCode.MESSAGE_LIMIT_REACHED);
      expect(error.status).toBe(429);
      expect(error.headers).toEqual({ 'Retry-After': '2' });
    }
  });
});
