/**
 * Correctness under concurrency, with two app instances sharing one database (as replicas behind a
 * load balancer do): on PGlite both instances share one in-process database, on PostgreSQL (with
 * DATABASE_URL) the real connection pool. Requests are sent with bounded concurrency, so the
 * suite tests correctness, not the machine's limits.
 */
import type http from 'node:http';
import type { Response } from 'supertest';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';
import { LEAD_MOVES as MOVES, LEAD_STATUSES as STATUSES, type LeadStatusName as Status } from '../support/lead-status-machine';
import { sleep } from '../support/child-server';

type Lead = { id: string; name: string; email: string; status: string; tags: string[]; createdAt: string; updatedAt: string } & Record<string, unknown>;

/** Runs `count` tasks with at most `concurrency` in flight; results in task order. */
async function inPool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

/** Newest first: createdAt descending, then id descending (API_DECISIONS). */
function newerFirst(a: Lead, b: Lead): number {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? -1 : 1;
  return a.id === b.id ? 0 : a.id > b.id ? -1 : 1;
}

/** PGlite runs one transaction at a time, so races between transactions exist on PostgreSQL only. */

describe('Concurrency on two instances sharing one database', () => {
  let first: TestApp;
  let second: TestApp;
  const instances = () => [first, second] as const;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createTestApp({}, { connection: first.connection });
    // Listen once, so that supertest reuses the address instead of opening a server per request.
    for (const app of instances()) {
      const server = app.app.getHttpServer() as http.Server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const createLead = (app: TestApp, key: string, body: Record<string, unknown>) => app.http().post('/api/v1/leads').set('X-API-Key', key).send(body);
  const getLead = (app: TestApp, key: string, id: string) => app.http().get(`/api/v1/leads/${id}`).set('X-API-Key', key);
  const listLeads = (app: TestApp, key: string, limit: number, offset: number) =>
    app.http().get(`/api/v1/leads?limit=${limit}&offset=${offset}`).set('X-API-Key', key);
  const patchLead = (app: TestApp, key: string, id: string, status: string) => app.http().patch(`/api/v1/leads/${id}`).set('X-API-Key', key).send({ status });
  const summary = (response: Response) => `${response.status} ${response.text.slice(0, 300)}`;

  describe('1,000 concurrent lead creations split across both instances', () => {
    const COUNT = 1_000;
    const IN_FLIGHT = 50;
    let tenant: TestTenant;
    let created: { index: number; status: number; lead: Lead; location: string | undefined; text: string }[];
    let ids: string[];

    beforeAll(async () => {
      tenant = await createTenant(first, { plan: 'enterprise' });
      created = await inPool(COUNT, IN_FLIGHT, async (index) => {
        const response = await createLead(index % 2 ? second : first, tenant.key, {
          name: `Concurrent ${index}`,
          email: `concurrent-${index}@example.com`,
          tags: [`n${index}`],
        });
        return { index, status: response.status, lead: response.body.lead as Lead, location: response.headers.location, text: response.text };
      });
      ids = created.map(({ lead }) => lead?.id);
    });

    it('answers every creation 201 with its own lead and a distinct id', () => {
      expect(created.filter(({ status }) => status !== 201).map(({ index, status, text }) => `#${index}: ${status} ${text.slice(0, 200)}`)).toEqual([]);
      for (const { index, lead, location } of created) {
        expect(lead).toEqual(
          expect.objectContaining({
            name: `Concurrent ${index}`,
            email: `concurrent-${index}@example.com`,
            tags: [`n${index}`],
            status: 'new',
            source: 'api',
            conversationId: null,
            botId: null,
          }),
        );
        expect(location).toBe(`/api/v1/leads/${lead.id}`);
      }
      expect(new Set(ids).size).toBe(COUNT);
    });

    it('stores exactly 1,000 rows, the ones that were answered', async () => {
      const rows = await first.prisma.lead.findMany({ where: { tenantId: tenant.id }, select: { id: true } });
      expect(rows).toHaveLength(COUNT);
      expect(new Set(rows.map(({ id }) => id))).toEqual(new Set(ids));
    });

    it('serves every created lead through GET /api/v1/leads/:id on both instances, as it was created', async () => {
      const reads = await inPool(COUNT * 2, IN_FLIGHT, async (index) => {
        const app = index < COUNT ? first : second;
        const { lead } = created[index % COUNT];
        const response = await getLead(app, tenant.key, lead.id);
        return { index, response, expected: lead };
      });
      const wrong = reads.filter(({ response, expected }) => response.status !== 200 || JSON.stringify(response.body) !== JSON.stringify({ lead: expected }));
      expect(wrong.map(({ index, response }) => `read #${index}: ${summary(response)}`)).toEqual([]);
    });

    it('lists a total of 1,000 on both instances, every lead once, newest first', async () => {
      for (const app of instances()) {
        const seen: Lead[] = [];
        for (let offset = 0, hasMore = true; hasMore; offset += 100) {
          const response = await listLeads(app, tenant.key, 100, offset);
          expect({ status: response.status, pagination: response.body.pagination }).toEqual({
            status: 200,
            pagination: { total: COUNT, limit: 100, offset, hasMore: offset + 100 < COUNT },
          });
          seen.push(...(response.body.leads as Lead[]));
          hasMore = response.body.pagination.hasMore;
        }
        expect(seen).toHaveLength(COUNT);
        expect(new Set(seen.map(({ id }) => id))).toEqual(new Set(ids));
        expect(seen.map(({ id }) => id)).toEqual([...seen].sort(newerFirst).map(({ id }) => id));
      }
    });
  });

  describe('walking the leads list (offset paging, newest first) while leads are being created', () => {
    /**
     * What offset paging promises under inserts, newest first: a new lead goes to the head of the
     * list (or near it: a concurrent insert's createdAt is its statement time, so commit order
     * and createdAt order can differ by a few milliseconds), which shifts every older lead one
     * position back. A lead that was the last of page k can therefore be the first of page k+1
     * when the walk asks for it: the walk sees it twice. Each insert that commits during the walk
     * can cause at most one such repeat. No lead that existed when the walk began can be skipped:
     * nothing is deleted, and inserts only ever move the existing leads to later positions, so
     * the window, which also moves forward, cannot jump over one. Leads created during the walk
     * may or may not be seen (those at the head usually are not).
     */
    it('sees every lead that existed when the walk began at least once, in order, and repeats at most one per insert', async () => {
      const tenant = await createTenant(first, { plan: 'enterprise' });
      const EXISTING = 150;
      const PAGE = 10;
      const WRITERS = 2;
      const MAX_INSERTS = 250;

      const existing = await inPool(EXISTING, 20, async (index) => {
        const response = await createLead(first, tenant.key, { name: `Existing ${index}`, email: `existing-${index}@example.com` });
        expect(response.status).toBe(201);
        return response.body.lead as Lead;
      });

      // Writers create leads through the second instance until the walk is over.
      interface Insert {
        id?: string;
        startedAt: number;
        answeredAt?: number;
      }
      const inserts: Insert[] = [];
      let walking = true;
      const writers = Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          while (walking && inserts.length < MAX_INSERTS) {
            const insert: Insert = { startedAt: performance.now() };
            inserts.push(insert);
            const response = await createLead(second, tenant.key, {
              name: `During ${writer}-${inserts.length}`,
              email: `during-${writer}-${inserts.length}@example.com`,
            });
            expect(response.status).toBe(201);
            insert.id = response.body.lead.id;
            insert.answeredAt = performance.now();
            await sleep(3);
          }
        }),
      );
      for (let waited = 0; inserts.filter(({ answeredAt }) => answeredAt !== undefined).length < 5; waited += 2) {
        if (waited > 20_000) throw new Error('the writers created no leads');
        await sleep(2);
      }

      // The walk, through the first instance.
      const walkStartedAt = performance.now();
      const existedAtStart = new Set([...existing.map(({ id }) => id), ...inserts.filter(({ answeredAt }) => answeredAt !== undefined).map(({ id }) => id!)]);
      const sightings: Lead[] = [];
      let pages = 0;
      for (let offset = 0, hasMore = true; hasMore; offset += PAGE) {
        const response = await listLeads(first, tenant.key, PAGE, offset);
        expect(response.status).toBe(200);
        const page = response.body.leads as Lead[];
        // Within one page the order is exact.
        expect(page.map(({ id }) => id)).toEqual([...page].sort(newerFirst).map(({ id }) => id));
        sightings.push(...page);
        hasMore = response.body.pagination.hasMore;
        pages++;
        expect(pages).toBeLessThan(200);
      }
      const walkEndedAt = performance.now();
      walking = false;
      await writers;

      const createdIds = new Set([...existing.map(({ id }) => id), ...inserts.map(({ id }) => id)]);
      const seen = sightings.map(({ id }) => id);
      const repeats = seen.length - new Set(seen).size;
      const overlapping = inserts.filter(({ startedAt, answeredAt }) => startedAt < walkEndedAt && (answeredAt === undefined || answeredAt >= walkStartedAt));

      // The walk overlapped with inserts (otherwise this test would prove nothing).
      expect(inserts.filter(({ answeredAt }) => answeredAt !== undefined && answeredAt > walkStartedAt && answeredAt < walkEndedAt).length).toBeGreaterThan(0);
      // Only this tenant's leads, none invented.
      expect(seen.filter((id) => !createdIds.has(id))).toEqual([]);
      // Nothing that existed when the walk began is lost.
      expect([...existedAtStart].filter((id) => !seen.includes(id))).toEqual([]);
      // The leads that existed are first seen in the list's order, newest first.
      const firstSightings = sightings.filter((lead, index) => existedAtStart.has(lead.id) && seen.indexOf(lead.id) === index);
      expect(firstSightings.map(({ id }) => id)).toEqual([...firstSightings].sort(newerFirst).map(({ id }) => id));
      // A repeat needs an insert that committed during the walk.
      expect(repeats).toBeLessThanOrEqual(overlapping.length);
      // The list is complete once the writers stopped.
      const total = (await listLeads(second, tenant.key, 1, 0)).body.pagination.total;
      expect(total).toBe(EXISTING + inserts.length);
    });
  });

  describe('concurrent status changes on one lead', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(first, { plan: 'enterprise' });
    });

    async function leadIn(status: Status): Promise<string> {
      const response = await createLead(first, tenant.key, { name: 'Status Race', email: 'race@example.com' });
      expect(response.status).toBe(201);
      const id: string = response.body.lead.id;
      const path: Record<Status, Status[]> = {
        new: [],
        contacted: ['contacted'],
        qualified: ['qualified'],
        unqualified: ['unqualified'],
        converted: ['qualified', 'converted'],
      };
      for (const step of path[status]) expect((await patchLead(first, tenant.key, id, step)).status).toBe(200);
      return id;
    }

    async function race(id: string, targets: Status[]): Promise<{ target: Status; response: Response }[]> {
      const order = targets
        .map((target, index) => ({ target, index }))
        .sort((a, b) => ((a.index * 7919) % targets.length) - ((b.index * 7919) % targets.length));
      const answers = await inPool(order.length, order.length, async (slot) => {
        const { target } = order[slot];
        return { target, response: await patchLead(slot % 2 ? second : first, tenant.key, id, target) };
      });
      const unexpected = answers.filter(({ response }) => response.status !== 200 && response.status !== 409);
      expect(unexpected.map(({ target, response }) => `-> ${target}: ${summary(response)}`)).toEqual([]);
      for (const { target, response } of answers) {
        if (response.status === 200) expect(response.body.lead.status).toBe(target);
        else
          expect(response.body).toEqual({
            error: { code: 'INVALID_STATUS_TRANSITION', message: expect.any(String), status: 409, requestId: response.headers['x-request-id'] },
          });
      }
      return answers;
    }

    async function finalStatus(id: string): Promise<Status> {
      const statuses = await Promise.all(instances().map(async (app) => (await getLead(app, tenant.key, id)).body.lead.status as Status));
      expect(statuses[0]).toBe(statuses[1]);
      return statuses[0];
    }

    it('lets exactly one of two conflicting moves win (qualified -> converted | unqualified)', async () => {
      const id = await leadIn('qualified');
      const answers = await race(id, [...Array<Status>(25).fill('converted'), ...Array<Status>(25).fill('unqualified')]);
      const final = await finalStatus(id);
      expect(['converted', 'unqualified']).toContain(final);
      const loser = final === 'converted' ? 'unqualified' : 'converted';
      // Every move to the losing status came too late: the winning one is final or forbids it.
      expect(answers.filter(({ target, response }) => target === loser && response.status !== 409).map(({ response }) => summary(response))).toEqual([]);
      expect(answers.some(({ target, response }) => target === final && response.status === 200)).toBe(true);
    });

    it('answers a move to the status the lead already reached concurrently as a no-op 200, not 409', async () => {
      const spurious: string[] = [];
      for (let round = 0; round < 4; round++) {
        const id = await leadIn('qualified');
        const answers = await race(id, Array<Status>(40).fill('converted'));
        expect(await finalStatus(id)).toBe('converted');
        spurious.push(...answers.filter(({ response }) => response.status !== 200).map(({ response }) => summary(response)));
      }
      expect(spurious).toEqual([]);
    });

    it('moves along a chain only forward (new -> contacted -> qualified -> converted requested at once)', async () => {
      const chain: Status[] = ['contacted', 'qualified', 'converted'];
      for (let round = 0; round < 3; round++) {
        const id = await leadIn('new');
        const answers = await race(
          id,
          chain.flatMap((status) => Array<Status>(12).fill(status)),
        );
        const final = await finalStatus(id);
        const reached = chain.filter((status) => answers.some(({ target, response }) => target === status && response.status === 200));
        // The final status is the furthest one reached; converted needs a lead that was qualified.
        expect(reached.at(-1)).toBe(final);
        if (reached.includes('converted')) expect(reached).toContain('qualified');
      }
    });

    it('never breaks the status machine when every status is requested at once, round after round', async () => {
      const id = await leadIn('new');
      let current: Status = 'new';
      let replayed = 0;
      for (let round = 0; round < 4; round++) {
        const answers = await race(
          id,
          STATUSES.flatMap((status) => Array<Status>(8).fill(status)),
        );
        const final = await finalStatus(id);
        const succeeded = answers.filter(({ response }) => response.status === 200).map(({ response }) => response.body.lead as Lead);
        expect([current, ...succeeded.map(({ status }) => status)]).toContain(final);
        // Replay the moves in updatedAt order (every real move stamps updatedAt; a no-op answers
        // the lead unchanged). Where two different statuses share a millisecond the order is
        // unknown and the round is not replayed.
        const byTime = new Map<string, Set<string>>();
        for (const lead of succeeded) byTime.set(lead.updatedAt, (byTime.get(lead.updatedAt) ?? new Set()).add(lead.status));
        if ([...byTime.values()].every((statuses) => statuses.size === 1)) {
          const sequence = [...byTime.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, statuses]) => [...statuses][0] as Status);
          let state: Status = current;
          for (const next of sequence) {
            if (next !== state) expect(`${state} -> ${next}: ${MOVES[state].includes(next) ? 'allowed' : 'forbidden'}`).toBe(`${state} -> ${next}: allowed`);
            state = next;
          }
          expect(state).toBe(final);
          replayed++;
        }
        current = final;
        // Keep the rounds interesting: a converted lead cannot move any more.
        if (current === 'converted') break;
      }
      expect(replayed).toBeGreaterThan(0);
    });
  });
});
