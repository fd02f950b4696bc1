import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UUID } from '../support/assertions';
import { Answer, ChildServer, freePort, request, requireBuild, sleep } from '../support/child-server';

/**
 * The BUILT server (`node dist/main.js`) as a child process on an embedded database in a temp
 * folder: structured logs, then SIGTERM under a steady stream of keep-alive and slow requests,
 * then a restart on the same folder to find every lead that was answered 201.
 */

const DRAIN_MS = 500;
const GRACE_MS = 5_000;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

type LogLine = Record<string, any>;

function jsonLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Waits until the request's log line is written (pino writes after the response). */
async function logLinesOf(server: ChildServer, requestId: string): Promise<LogLine[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const lines = jsonLines(server.stdout).filter((line) => line.requestId === requestId);
    if (lines.length > 0 || Date.now() > deadline) {
      await sleep(100); // a second line, if any, would be written right after the first
      return jsonLines(server.stdout).filter((line) => line.requestId === requestId);
    }
    await sleep(50);
  }
}

interface Outcome {
  kind: 'get' | 'post' | 'slow-post' | 'late-post';
  startedAt: number;
  endedAt: number;
  answer?: Answer;
  error?: string;
}

describe('Built server (node dist/main.js): logs and graceful shutdown', () => {
  let dataDir: string;
  let server: ChildServer;
  let restarted: ChildServer | undefined;
  let demoKey: string;
  let tenant: { id: string; key: string; keyId: string };

  const admin = (method: string, pathname: string, body?: unknown) =>
    request({ port: server.port, path: pathname, method, body, headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });

  beforeAll(async () => {
    requireBuild();
    dataDir = await mkdtemp(path.join(tmpdir(), 'graceful-shutdown-'));
    server = new ChildServer({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: 'info',
      DEMO_DATA: 'true',
      ADMIN_API_TOKEN: ADMIN_TOKEN,
    });
    await server.waitFor('/health/ready');
    // The banner is written right after the listener opens.
    for (let i = 0; i < 50 && !/svc_sk_\w+/.test(server.stdout); i++) await sleep(100);
    demoKey = /svc_sk_[0-9A-Za-z]+/.exec(server.stdout)?.[0] ?? '';
    expect(demoKey).toMatch(/^svc_sk_[0-9A-Za-z]{33}$/);

    // An Enterprise tenant (500 requests/s) so the request stream below never meets a rate limit.
    const slug = `gs-${randomUUID().slice(0, 8)}`;
    const created = await admin('POST', '/admin/v1/tenants', { name: 'Graceful Shutdown', slug, plan: 'enterprise' });
    expect(created.status).toBe(201);
    const key = await admin('POST', `/admin/v1/tenants/${created.json.tenant.id}/api-keys`, { name: 'shutdown test', scopes: ['leads:read', 'leads:write'] });
    expect(key.status).toBe(201);
    tenant = { id: created.json.tenant.id, key: key.json.key, keyId: key.json.apiKey.id };
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await restarted?.kill();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  describe('structured logs (LOG_LEVEL=info, stdout is a pipe)', () => {
    const api = (pathname: string, options: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}) =>
      request({
        port: server.port,
        path: pathname,
        method: options.method,
        body: options.body,
        headers: { ...(options.key === undefined ? { 'X-API-Key': tenant.key } : options.key ? { 'X-API-Key': options.key } : {}), ...options.headers },
      });

    it('writes one JSON line per request with requestId (= X-Request-Id), tenantId, keyId, route, res.status and responseTime', async () => {
      const created = await api('/api/v1/leads', { body: { name: 'Log Line', email: 'log.line@example.com' } });
      expect(created.status).toBe(201);
      const leadId: string = created.json.lead.id;
      const read = await api(`/api/v1/leads/${leadId}`);
      expect(read.status).toBe(200);

      for (const [answer, method, route, status, pathname] of [
        [created, 'POST', '/api/v1/leads', 201, '/api/v1/leads'],
        [read, 'GET', '/api/v1/leads/:id', 200, `/api/v1/leads/${leadId}`],
      ] as const) {
        const requestId = answer.headers['x-request-id'] as string;
        expect(requestId).toMatch(UUID);
        const lines = await logLinesOf(server, requestId);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toEqual({
          level: 30,
          time: expect.any(Number),
          pid: server.process.pid,
          hostname: expect.any(String),
          req: { id: requestId, method, path: pathname },
          requestId,
          res: { status },
          responseTime: expect.any(Number),
          tenantId: tenant.id,
          keyId: tenant.keyId,
          route,
          msg: 'request completed',
        });
        expect(lines[0].responseTime).toBeGreaterThanOrEqual(0);
      }
    });

    it('logs the path without its query string, and echoes and logs a well-formed incoming X-Request-Id', async () => {
      const requestId = randomUUID();
      const answer = await api('/api/v1/leads?search=needle-in-query&limit=1', { headers: { 'X-Request-Id': requestId } });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-request-id']).toBe(requestId);
      const lines = await logLinesOf(server, requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        req: { id: requestId, method: 'GET', path: '/api/v1/leads' },
        res: { status: 200 },
        route: '/api/v1/leads',
        tenantId: tenant.id,
        keyId: tenant.keyId,
      });
      expect(server.stdout).not.toContain('needle-in-query');
    });

    it('logs a refused request (401) at warn level without tenant or key id', async () => {
      const wrongKey = `svc_sk_${'A'.repeat(33)}`;
      const answer = await api('/api/v1/leads', { key: wrongKey });
      expect(answer.status).toBe(401);
      expect(answer.json.error.code).toBe('INVALID_API_KEY');
      const requestId = answer.headers['x-request-id'] as string;
      const lines = await logLinesOf(server, requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        requestId,
        req: { id: requestId, method: 'GET', path: '/api/v1/leads' },
        res: { status: 401 },
        responseTime: expect.any(Number),
      });
      expect(lines[0]).not.toHaveProperty('tenantId');
      expect(lines[0]).not.toHaveProperty('keyId');
      expect(server.stdout).not.toContain(wrongKey);
    });

    it('never writes the API keys or the admin token to stdout or stderr; the demo key appears only in its start-up banner', async () => {
      // An admin call and a keyed call right before the check, so their lines are in the capture.
      expect((await admin('GET', `/admin/v1/tenants/${tenant.id}`)).status).toBe(200);
      expect((await api('/api/v1/leads?limit=1')).status).toBe(200);
      expect((await api('/api/v1/leads?limit=1', { key: demoKey })).status).toBe(200);
      await sleep(200);
      const output = server.stdout + server.stderr;
      expect(output).not.toContain(tenant.key);
      expect(output).not.toContain(tenant.key.slice(7)); // the secret part on its own
      expect(output).not.toContain(ADMIN_TOKEN);
      const demoLines = output.split('\n').filter((line) => line.includes(demoKey));
      expect(demoLines).toEqual([`  ${demoKey}`, `  curl -s -H "X-API-Key: ${demoKey}" http://localhost:${server.port}/api/v1/bots`]);
      for (const line of jsonLines(server.stdout)) {
        expect(JSON.stringify(line)).not.toMatch(/x-api-key|authorization|bearer/i);
      }
    });

    it('writes every stdout line outside the demo banner as a JSON object (no pretty printing without a TTY)', () => {
      const banner = new Set([
        '',
        '─'.repeat(78),
        'Demo tenant created (plan pro). Its secret key, shown this once:',
        `  ${demoKey}`,
        'Try it:',
        'Its public key, for the chat widget (it may call only verify and the widget endpoints):',
        'The widget on a demo page:',
      ]);
      const bannerLine = (line: string) =>
        banner.has(line) || line.startsWith('Dashboard: ') || /^ {2}(curl -s -H "X-API-Key: |svc_pk_|http:\/\/localhost:\d+\/widget\/demo\?)/.test(line);
      const other = server.stdout.split('\n').filter((line) => !bannerLine(line));
      expect(other.map((line) => (JSON.parse(line) as LogLine).msg)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^Embedded database in /), expect.stringMatching(/^Listening on /)]),
      );
      for (const line of other) {
        const parsed = JSON.parse(line) as LogLine;
        expect(parsed).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }));
      }
      expect(server.stderr).toBe('');
    });
  });

  describe(`SIGTERM under load (drain ${DRAIN_MS} ms, grace ${GRACE_MS} ms)`, () => {
    const outcomes: Outcome[] = [];
    const readiness: Array<{ at: number; answer?: Answer; error?: string }> = [];
    let signalAt = 0;
    const leadIdsAfterRestart: string[] = [];

    const record = async (kind: Outcome['kind'], send: () => Promise<Answer>): Promise<Outcome> => {
      const startedAt = Date.now();
      let outcome: Outcome;
      try {
        outcome = { kind, startedAt, answer: await send(), endedAt: Date.now() };
      } catch (error) {
        outcome = {
          kind,
          startedAt,
          error: error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` : String(error),
          endedAt: Date.now(),
        };
      }
      outcomes.push(outcome);
      return outcome;
    };
    const leadBody = (label: string, extra: Record<string, unknown> = {}) => ({
      name: `Shutdown ${label}`,
      email: `shutdown-${randomUUID().slice(0, 12)}@example.com`,
      company: 'Drain Ltd',
      ...extra,
    });
    const describeOutcome = (o: Outcome) =>
      `${o.kind} started ${o.startedAt - signalAt} ms from the signal, took ${o.endedAt - o.startedAt} ms: ${o.error ?? `${o.answer!.status} complete=${o.answer!.complete} ${o.answer!.text.slice(0, 120)}`}`;

    beforeAll(async () => {
      const port = server.port;
      const headers = { 'X-API-Key': tenant.key };
      const hardStop = Date.now() + 1_500 + DRAIN_MS + GRACE_MS + 5_000;
      let stopping = false;

      // Four keep-alive connections, each sending GET and POST in turn with a short pause.
      const worker = async (index: number) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let n = 0; !stopping && !server.exit && Date.now() < hardStop; n++) {
            const outcome =
              (n + index) % 2 === 0
                ? await record('post', () => request({ port, path: '/api/v1/leads', body: leadBody(`w${index}-${n}`), headers, agent }))
                : await record('get', () => request({ port, path: '/api/v1/leads?limit=5', headers, agent }));
            if (outcome.error && /ECONNREFUSED/.test(outcome.error)) return; // the listener is closed
            await sleep(40);
          }
        } finally {
          agent.destroy();
        }
      };
      const workers = [0, 1, 2, 3].map((index) => worker(index));

      await sleep(1_000);
      readiness.push({ at: Date.now(), answer: await request({ port, path: '/health/ready' }) });
      // Slow clients: each body goes out in 6 chunks over about 1 s, across the signal and past the
      // end of the drain window, when the listener closes with these requests still in flight. Two
      // are on their own connection (Connection: close); the third on a keep-alive connection, which
      // is then used once more after the listener has closed, for another slow upload.
      const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const slowBody = (label: string) => leadBody(label, { message: 'x'.repeat(3_000) });
      const slow = [0, 1, 2].map(async (index) => {
        await sleep(index * 100);
        const agent = index === 2 ? keepAlive : false;
        const first = await record('slow-post', () =>
          request({ port, path: '/api/v1/leads', body: slowBody(`slow-${index}`), headers, chunks: 6, chunkDelayMs: 200, agent }),
        );
        if (agent) {
          await sleep(300);
          await record('late-post', () => request({ port, path: '/api/v1/leads', body: slowBody('late'), headers, chunks: 8, chunkDelayMs: 800, agent }));
          agent.destroy();
        }
        return first;
      });
      await sleep(400);

      signalAt = Date.now();
      server.process.kill('SIGTERM');
      for (const delay of [150, 300]) {
        await sleep(signalAt + delay - Date.now());
        const at = Date.now();
        readiness.push(
          await request({ port, path: '/health/ready' }).then(
            (answer) => ({ at, answer }),
            (error: Error) => ({ at, error: error.message }),
          ),
        );
      }

      await server.waitForExit(DRAIN_MS + GRACE_MS + 10_000);
      stopping = true;
      await Promise.all([...workers, ...slow]);

      // Restart on the same data directory (short drain and grace for the last test) and list the leads.
      restarted = new ChildServer({ ...server.env, PORT: String(await freePort()), SHUTDOWN_DRAIN_MS: '0', SHUTDOWN_GRACE_MS: '1000' });
      await restarted.waitFor('/health/ready');
      for (let offset = 0; ; offset += 100) {
        const page = await request({ port: restarted.port, path: `/api/v1/leads?limit=100&offset=${offset}`, headers });
        expect(page.status).toBe(200);
        leadIdsAfterRestart.push(...(page.json.leads as Array<{ id: string }>).map((lead) => lead.id));
        if (!page.json.pagination.hasMore) break;
      }
    }, 60_000);

    it('turns /health/ready to 503 during the drain window while requests are still served', () => {
      expect(readiness[0].answer?.status).toBe(200);
      for (const probe of readiness.slice(1)) {
        expect(probe.error).toBeUndefined();
        expect(probe.answer!.status).toBe(503);
        expect(probe.answer!.json).toEqual({
          status: 'error',
          info: { database: { kind: 'embedded', status: 'up' } },
          error: { lifecycle: { status: 'down', message: 'shutting down' } },
          details: { database: { kind: 'embedded', status: 'up' }, lifecycle: { status: 'down', message: 'shutting down' } },
        });
      }
      // Requests sent in the first half of the drain window (on the kept-alive connections) are answered.
      const duringDrain = outcomes.filter((o) => o.kind !== 'slow-post' && o.startedAt >= signalAt && o.startedAt < signalAt + DRAIN_MS / 2);
      expect(duringDrain.length).toBeGreaterThan(0);
      const failed = duringDrain.filter((o) => !o.answer || !o.answer.complete || ![200, 201].includes(o.answer.status));
      expect(failed.map(describeOutcome)).toEqual([]);
    });

    it('gives every request sent before the signal a complete, well-formed answer (slow uploads included)', () => {
      const before = outcomes.filter((o) => o.startedAt < signalAt);
      expect(before.filter((o) => o.kind === 'slow-post')).toHaveLength(3);
      expect(before.filter((o) => o.kind !== 'slow-post').length).toBeGreaterThanOrEqual(20);
      const bad = before.filter((o) => {
        const answer = o.answer;
        if (!answer || !answer.complete || answer.json === undefined) return true;
        if (!String(answer.headers['content-type']).startsWith('application/json')) return true;
        if (o.kind === 'get') return answer.status !== 200 || !Array.isArray(answer.json.leads) || typeof answer.json.pagination?.total !== 'number';
        return answer.status !== 201 || !UUID.test(answer.json.lead?.id) || answer.headers.location !== `/api/v1/leads/${answer.json.lead.id}`;
      });
      expect(bad.map(describeOutcome)).toEqual([]);
      // The slow uploads were still in flight when the listener closed.
      for (const o of before.filter((o) => o.kind === 'slow-post')) expect(o.endedAt).toBeGreaterThan(signalAt + DRAIN_MS);
    });

    it('keeps every lead that was answered 201: all are listed after a restart on the same data directory', () => {
      const created = outcomes.filter((o) => o.answer?.status === 201).map((o) => o.answer!.json.lead.id as string);
      const unanswered = outcomes.filter((o) => o.kind !== 'get' && !o.answer).length;
      expect(created.length).toBeGreaterThan(10);
      expect(new Set(created).size).toBe(created.length);
      const listed = new Set(leadIdsAfterRestart);
      expect(created.filter((id) => !listed.has(id))).toEqual([]);
      // Only a request whose answer was lost may have added a lead beyond those answered 201.
      expect(listed.size).toBeGreaterThanOrEqual(created.length);
      expect(listed.size).toBeLessThanOrEqual(created.length + unanswered);
      // The restart found its data: no second demo tenant.
      expect(restarted!.stdout).not.toMatch(/svc_sk_|Demo tenant created/);
    });

    it('exits with code 0 within drain + grace and logs the shutdown', () => {
      expect(server.exit).toEqual({ code: 0, signal: null, at: expect.any(Number) });
      expect(server.exit!.at - signalAt).toBeGreaterThanOrEqual(DRAIN_MS);
      expect(server.exit!.at - signalAt).toBeLessThan(DRAIN_MS + GRACE_MS + 3_000);
      const shutdown = jsonLines(server.stdout).filter((line) => line.context === 'Shutdown');
      expect(shutdown[0]).toMatchObject({ level: 30, msg: `SIGTERM received: draining (ready=false), closing in ${DRAIN_MS} ms` });
      expect(shutdown[shutdown.length - 1]).toMatchObject({ level: 30, msg: 'Shut down cleanly' });
      expect(server.stderr).toBe('');
    });

    it('closes a busy keep-alive connection after its answer once the listener is closed, so it does not wait out the grace period', () => {
      const late = outcomes.filter((o) => o.kind === 'late-post');
      expect(late).toHaveLength(1);
      // The connection was closed after the slow answer, so the late request finds no listener.
      expect(late.map((o) => o.error ?? describeOutcome(o))).toEqual([expect.stringMatching(/ECONNREFUSED/)]);
      // Nothing took longer than ~1.2 s (the slow uploads), so the grace period never ran out.
      expect(
        jsonLines(server.stdout)
          .filter((line) => /Grace period/.test(line.msg))
          .map((line) => line.msg),
      ).toEqual([]);
      expect(server.exit!.at - signalAt).toBeLessThan(DRAIN_MS + 2_500);
    });

    it('cuts a request still running when the grace period ends, then exits 0', async () => {
      const live = restarted!;
      const stalled = new Promise<string>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port: live.port,
          path: '/api/v1/leads',
          method: 'POST',
          agent: false,
          headers: { 'X-API-Key': tenant.key, 'Content-Type': 'application/json', 'Content-Length': '200' },
        });
        req.on('response', (res) => resolve(`answered ${res.statusCode}`));
        req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        req.write('{"name":"Stalled"'); // and never the rest
      });
      await sleep(300);
      const signal = Date.now();
      live.process.kill('SIGTERM');
      const exit = await live.waitForExit(10_000);
      expect(exit.code).toBe(0);
      expect(exit.at - signal).toBeGreaterThanOrEqual(1_000);
      expect(exit.at - signal).toBeLessThan(1_000 + 3_000);
      expect(await stalled).toMatch(/ECONNRESET|socket hang up/);
      const shutdown = jsonLines(live.stdout)
        .filter((line) => line.context === 'Shutdown')
        .map((line) => [line.level, line.msg]);
      expect(shutdown).toEqual([
        [30, 'SIGTERM received: draining (ready=false), closing in 0 ms'],
        [40, 'Grace period of 1000 ms over: closing the remaining connections'],
        [30, 'Shut down cleanly'],
      ]);
    });
  });
});
