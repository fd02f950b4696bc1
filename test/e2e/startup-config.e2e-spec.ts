import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_EXTENSIONS } from '../../src/database/database-connection';
import { ChildServer, freePort, request, requireBuild } from '../support/child-server';

const PEPPER = 'a-production-pepper-0123456789abcdef';
const STRONG_ADMIN_TOKEN = 'Zq3vN8xK2mP7wR4tY9bC6dF1gH5jL0sA';

/**
 * `node dist/main.js` with bad configuration stops with exit code 1 and one line on stderr naming
 * the variable; with a good one it starts. Every process gets its own empty data folder.
 */
describe('Start-up configuration of the built server (node dist/main.js)', () => {
  let root: string;
  let folders = 0;
  const dataDir = () => path.join(root, `data-${++folders}`);

  beforeAll(async () => {
    requireBuild();
    root = await mkdtemp(path.join(tmpdir(), 'startup-config-'));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Runs the server with `env` (on top of a free port and its own data folder) and waits for it to stop. */
  async function runToExit(env: Record<string, string>) {
    const server = new ChildServer({ PORT: String(await freePort()), DATA_DIR: dataDir(), ...env });
    const exit = await server.waitForExit(30_000);
    return { exit, stdout: server.stdout, stderr: server.stderr };
  }

  const badConfigurations: Array<[string, Record<string, string>, RegExp]> = [
    ['PORT=abc', { PORT: 'abc' }, /^Invalid configuration: PORT /],
    ['PORT=70000', { PORT: '70000' }, /^Invalid configuration: PORT must not be greater than 65535$/],
    ['NODE_ENV=production without API_KEY_PEPPER', { NODE_ENV: 'production' }, /^Invalid configuration: API_KEY_PEPPER is required when NODE_ENV=production$/],
    [
      'NODE_ENV=production without WIDGET_TOKEN_SECRET',
      { NODE_ENV: 'production', API_KEY_PEPPER: 'p'.repeat(16) + 'q'.repeat(16) },
      /^Invalid configuration: WIDGET_TOKEN_SECRET is required when NODE_ENV=production$/,
    ],
    ['a short WIDGET_TOKEN_SECRET', { WIDGET_TOKEN_SECRET: 'short' }, /^Invalid configuration: WIDGET_TOKEN_SECRET must be at least 32 characters$/],
    ['DATABASE_URL=mysql://x', { DATABASE_URL: 'mysql://x' }, /^Invalid configuration: DATABASE_URL must be a postgresql:\/\/ connection string$/],
    ['ADMIN_API_TOKEN=short', { ADMIN_API_TOKEN: 'short' }, /^Invalid configuration: ADMIN_API_TOKEN must be at least 16 characters$/],
    [
      'TLS_CERT_FILE without TLS_KEY_FILE',
      { TLS_CERT_FILE: '/etc/ssl/certs/none.pem' },
      /^Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together$/,
    ],
    [
      'TLS_KEY_FILE without TLS_CERT_FILE',
      { TLS_KEY_FILE: '/etc/ssl/private/none.key' },
      /^Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together$/,
    ],
    [
      'LOG_LEVEL=loud',
      { LOG_LEVEL: 'loud' },
      /^Invalid configuration: LOG_LEVEL must be one of the following values: fatal, error, warn, info, debug, trace, silent$/,
    ],
    ['DEMO_DATA=maybe', { DEMO_DATA: 'maybe' }, /^Invalid configuration: DEMO_DATA must be true or false$/],
    ['LLM_REWRITE_QUESTIONS=maybe', { LLM_REWRITE_QUESTIONS: 'maybe' }, /^Invalid configuration: LLM_REWRITE_QUESTIONS must be true or false$/],
    ['TRUST_PROXY=not-an-address', { TRUST_PROXY: 'not-an-address' }, /^Invalid configuration: TRUST_PROXY /],
    ['TRUST_PROXY with one bad entry in a list', { TRUST_PROXY: 'loopback, 10.0.0.0/8, nope' }, /^Invalid configuration: TRUST_PROXY /],
    ['SHUTDOWN_GRACE_MS=-5', { SHUTDOWN_GRACE_MS: '-5' }, /^Invalid configuration: SHUTDOWN_GRACE_MS /],
    ['REDIS_URL=http://cache:6379', { REDIS_URL: 'http://cache:6379' }, /^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [
      'DATABASE_URL=postgresql://db host/app',
      { DATABASE_URL: 'postgresql://db host/app' },
      /^Invalid configuration: DATABASE_URL must be a postgresql:\/\/ connection string$/,
    ],
    ['NODE_ENV=Production', { NODE_ENV: 'Production' }, /^Invalid configuration: NODE_ENV must be exactly production/],
    [
      'production with a 26-character ADMIN_API_TOKEN',
      { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, ADMIN_API_TOKEN: 'admin-token-0123456789abcd' },
      /^Invalid configuration: ADMIN_API_TOKEN must be at least 32 characters with at least 8 distinct characters when NODE_ENV=production$/,
    ],
    [
      'production with the built-in development API_KEY_PEPPER',
      { NODE_ENV: 'production', API_KEY_PEPPER: 'development-only-pepper-do-not-use-in-production' },
      /^Invalid configuration: API_KEY_PEPPER must not be the built-in development value when NODE_ENV=production/,
    ],
    [
      'production with the built-in development WIDGET_TOKEN_SECRET',
      { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, WIDGET_TOKEN_SECRET: 'development-only-widget-token-secret-do-not-use-in-production' },
      /^Invalid configuration: WIDGET_TOKEN_SECRET must not be the built-in development value when NODE_ENV=production/,
    ],
    [
      'production with an ADMIN_API_TOKEN of abcdefgh four times',
      { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, ADMIN_API_TOKEN: 'abcdefgh'.repeat(4) },
      /^Invalid configuration: ADMIN_API_TOKEN must not repeat a shorter pattern when NODE_ENV=production/,
    ],
    [
      'NODE_ENV=production without PUBLIC_URL',
      { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, WIDGET_TOKEN_SECRET: 'w'.repeat(16) + 'x'.repeat(16) },
      /^Invalid configuration: PUBLIC_URL is required when NODE_ENV=production /,
    ],
    [
      'production with TRUST_PROXY=true',
      { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, TRUST_PROXY: 'true' },
      /^Invalid configuration: TRUST_PROXY must not trust every address when NODE_ENV=production; list the proxies as CIDR ranges or loopback\/linklocal\/uniquelocal$/,
    ],
  ];

  describe('bad configuration: exit code 1 and one line on stderr naming the variable', () => {
    let results: Array<{ exit: { code: number | null }; stdout: string; stderr: string }>;

    beforeAll(async () => {
      // Two at a time: each start loads the whole app before validating.
      results = [];
      for (let i = 0; i < badConfigurations.length; i += 2) {
        results.push(...(await Promise.all(badConfigurations.slice(i, i + 2).map(([, env]) => runToExit(env)))));
      }
    }, 120_000);

    it.each(badConfigurations.map(([name, , message], index) => [name, index, message] as const))('%s', (_name, index, message) => {
      const { exit, stdout, stderr } = results[index];
      expect(exit.code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.endsWith('\n')).toBe(true);
      const lines = stderr.slice(0, -1).split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    });
  });

  it('describes a non-numeric or negative PORT as such, not as "greater than 65535"', async () => {
    for (const port of ['abc', '-1']) {
      const { exit, stderr } = await runToExit({ PORT: port });
      expect(exit.code).toBe(1);
      expect(stderr).toMatch(/^Invalid configuration: PORT /);
      expect(stderr).not.toMatch(/greater than 65535/);
    }
  });

  it('reports REDIS_URL=redis://not a url in exactly one line naming REDIS_URL, without a stack trace or the value', async () => {
    const { exit, stdout, stderr } = await runToExit({ REDIS_URL: 'redis://not a url' });
    expect(exit.code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toBe('Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL with a host (and an optional numeric database)\n');
    expect(stderr).not.toMatch(/\bat \S+ \(|ioredis|not a url/);
  });

  it('reports a TLS file that cannot be read in one line naming its variable', async () => {
    const { exit, stderr } = await runToExit({ TLS_CERT_FILE: path.join(root, 'missing.crt'), TLS_KEY_FILE: path.join(root, 'missing.key') });
    expect(exit.code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^Invalid configuration: TLS_(CERT|KEY)_FILE /);
  });

  describe('good configuration', () => {
    const servers: ChildServer[] = [];
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.kill()));
    });

    it('starts in development mode: /health/live and /health/ready answer 200, the demo key is printed, SIGTERM exits 0', async () => {
      const server = new ChildServer({ PORT: String(await freePort()), DATA_DIR: dataDir(), LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' });
      servers.push(server);
      await server.waitFor('/health/ready');
      const live = await request({ port: server.port, path: '/health/live' });
      expect({ status: live.status, body: live.json }).toEqual({ status: 200, body: { status: 'ok' } });
      await server.waitFor('/health/live'); // the banner follows the listener
      for (let i = 0; i < 50 && !server.stdout.includes('Try it:'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.stdout).toMatch(/Demo tenant created \(plan pro\)\. Its secret key, shown this once:\n {2}svc_sk_[0-9A-Za-z]{33}\n/);
      for (let i = 0; i < 50 && !server.stdout.includes('/widget/demo?'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      // The public key and the demo page with it filled in: the page loads and its key works on the widget.
      const [, publicKey] = /Its public key, for the chat widget .*:\n {2}(svc_pk_[0-9A-Za-z]{33})\n/.exec(server.stdout) ?? [];
      expect(publicKey).toBeDefined();
      const [, demoPath, botId] = /\n {2}http:\/\/localhost:\d+(\/widget\/demo\?botId=([0-9a-f-]{36})&key=svc_pk_[0-9A-Za-z]{33})\n/.exec(server.stdout) ?? [];
      expect(demoPath).toContain(`&key=${publicKey}`);
      expect((await request({ port: server.port, path: demoPath })).status).toBe(200);
      expect((await request({ port: server.port, path: `/api/v1/widget/bots/${botId}`, headers: { 'X-API-Key': publicKey } })).status).toBe(200);
      // The demo tenant's owner, to sign in to the dashboard at once.
      expect(server.stdout).toMatch(/\nDashboard: http:\/\/localhost:\d+\/dashboard {2}\(sign in as demo@example\.com \/ demo-password\)\n/);
      const login = await request({
        port: server.port,
        path: '/auth/v1/sessions',
        method: 'POST',
        headers: { Origin: `http://localhost:${server.port}`, Host: `localhost:${server.port}` },
        body: { email: 'demo@example.com', password: 'demo-password' },
      });
      // Without PUBLIC_URL (development only) a loopback request's own origin (scheme and Host) is the service's.
      expect(login.status).toBe(201);
      server.process.kill('SIGTERM');
      expect((await server.waitForExit(15_000)).code).toBe(0);
      expect(server.stderr).toBe('');
    });

    it('shows the demo key last, below the few start-up lines, and on a later start how to get a new key', async () => {
      const dir = dataDir();
      /** Starts the server on `dir`, waits for `text` on stdout, stops it (exit code 0) and returns its stdout. */
      const runUntil = async (text: string, env: Record<string, string> = {}): Promise<string> => {
        const server = new ChildServer({ PORT: String(await freePort()), DATA_DIR: dir, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0', ...env });
        servers.push(server);
        await server.waitFor('/health/ready');
        for (let i = 0; i < 50 && !server.stdout.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 100));
        server.process.kill('SIGTERM');
        expect((await server.waitForExit(15_000)).code).toBe(0);
        return server.stdout;
      };
      const first = { stdout: await runUntil('Try it:') };
      const [beforeBanner] = first.stdout.split('\nDemo tenant created');
      // Nest's per-module and per-route lines are not logged: only the service's own start-up lines precede the key.
      expect(first.stdout).not.toMatch(/Mapped \{|dependencies initialized|RoutesResolver/);
      expect(
        beforeBanner
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => (JSON.parse(line) as { msg: string }).msg),
      ).toEqual([
        // Applied by the migration process the server forks (and waits for) before it opens the folder.
        expect.stringMatching(/^Embedded database in .+; applied 20261121000000_init, \d{14}_/),
        expect.stringMatching(/^Listening on http:\/\/localhost:\d+$/),
        'Development mode: plain HTTP is accepted from loopback addresses only.',
      ]);

      const second = { stdout: await runUntil('A new key') };
      expect(second.stdout).toMatch(/"msg":"Embedded database in [^;"]+"/);
      expect(second.stdout).not.toMatch(/svc_sk_|Demo tenant created/);
      expect(second.stdout).toMatch(/Demo tenant in .+ \(id [0-9a-f-]{36}\)\. Its keys were shown on the first start only\./);
      expect(second.stdout).toMatch(/curl -s -X POST -H "Authorization: Bearer \$ADMIN_API_TOKEN" .*\n.*\/admin\/v1\/tenants\/[0-9a-f-]{36}\/api-keys\n/);
      expect(second.stdout).toContain('A new key: start with ADMIN_API_TOKEN set');
      expect(second.stdout).toContain(`-d '{"name":"Demo widget key","type":"public","scopes":[]}'`);

      // With ADMIN_API_TOKEN set, the banner does not ask for it.
      const third = { stdout: await runUntil('A new public key', { ADMIN_API_TOKEN: STRONG_ADMIN_TOKEN }) };
      expect(third.stdout).toContain('A new secret key (with the ADMIN_API_TOKEN this service runs with):');
      expect(third.stdout).not.toContain('start with ADMIN_API_TOKEN set');
    });

    it("stops with exit code 1 and the schema engine's reason when the folder holds a failed migration, before listening", async () => {
      const dir = dataDir();
      const first = new ChildServer({ PORT: String(await freePort()), DATA_DIR: dir, DEMO_DATA: 'false', SHUTDOWN_DRAIN_MS: '0' });
      servers.push(first);
      await first.waitFor('/health/ready');
      first.process.kill('SIGTERM');
      expect((await first.waitForExit(15_000)).code).toBe(0);
      const pglite = await PGlite.create({ dataDir: dir, extensions: EMBEDDED_EXTENSIONS });
      await pglite.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES (gen_random_uuid()::text, '-', '20261121000001_broken', now(), 0)`,
      );
      await pglite.close();

      const { exit, stdout, stderr } = await runToExit({ DATA_DIR: dir });
      expect(exit.code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(
        /^Failed to start: Error: Migration failed: migrate found failed migrations in the target database.*\n.*`20261121000001_broken` migration started at/,
      );
    });

    it('starts outside production with TRUST_PROXY=true, logging one warning that names TRUST_PROXY and suggests a list', async () => {
      const server = new ChildServer({
        PORT: String(await freePort()),
        DATA_DIR: dataDir(),
        TRUST_PROXY: 'true',
        DEMO_DATA: 'false',
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '0',
      });
      servers.push(server);
      await server.waitFor('/health/ready');
      server.process.kill('SIGTERM');
      expect((await server.waitForExit(15_000)).code).toBe(0);
      const warnings = server.stdout
        .split('\n')
        .filter((line) => line.includes('TRUST_PROXY'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(warnings).toHaveLength(1);
      expect(warnings[0].level).toBe(40);
      expect(warnings[0].msg).toMatch(/^TRUST_PROXY trusts every address: .*CIDR ranges or loopback\/uniquelocal/);
      expect(server.stderr).toBe('');
    });

    it('starts in development mode with TRUST_PROXY=loopback without that warning', async () => {
      const server = new ChildServer({
        PORT: String(await freePort()),
        DATA_DIR: dataDir(),
        TRUST_PROXY: 'loopback',
        DEMO_DATA: 'false',
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '0',
      });
      servers.push(server);
      await server.waitFor('/health/ready');
      server.process.kill('SIGTERM');
      expect((await server.waitForExit(15_000)).code).toBe(0);
      expect(server.stdout).toMatch(/"msg":"Listening on /);
      expect(server.stdout).not.toContain('TRUST_PROXY');
    });

    it('serves production behind a trusted proxy on 127.0.0.1 (TRUST_PROXY=loopback, X-Forwarded-Proto: https) and says so at start', async () => {
      const server = new ChildServer({
        PORT: String(await freePort()),
        DATA_DIR: dataDir(),
        NODE_ENV: 'production',
        API_KEY_PEPPER: PEPPER,
        ADMIN_API_TOKEN: STRONG_ADMIN_TOKEN,
        WIDGET_TOKEN_SECRET: 'w'.repeat(16) + 'x'.repeat(16),
        PUBLIC_URL: 'https://chat.example.com',
        TRUST_PROXY: 'loopback',
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '0',
      });
      servers.push(server);
      await server.waitFor('/health/ready');
      const proxied = { 'X-Forwarded-Proto': 'https', Authorization: `Bearer ${STRONG_ADMIN_TOKEN}` };
      const tenant = await request({ port: server.port, path: '/admin/v1/tenants', headers: proxied, body: { name: 'Acme', slug: 'acme', plan: 'pro' } });
      expect(tenant.status).toBe(201);
      const key = await request({
        port: server.port,
        path: `/admin/v1/tenants/${tenant.json.tenant.id}/api-keys`,
        headers: proxied,
        body: { name: 'k', scopes: ['bots:read'] },
      });
      expect(key.status).toBe(201);
      const verify = await request({ port: server.port, path: '/api/v1/verify', headers: { 'X-Forwarded-Proto': 'https', 'X-API-Key': key.json.key } });
      expect(verify.status).toBe(200);
      expect((await request({ port: server.port, path: '/api/v1/verify', headers: { 'X-API-Key': key.json.key } })).json.error.code).toBe('HTTPS_REQUIRED');
      server.process.kill('SIGTERM');
      expect((await server.waitForExit(15_000)).code).toBe(0);
      expect(server.stdout).toContain(
        '"msg":"Production mode: plain HTTP is refused (403 HTTPS_REQUIRED) unless it comes from a trusted proxy (TRUST_PROXY=loopback) that sends X-Forwarded-Proto: https."',
      );
      expect(server.stderr).toBe('');
    });

    it('starts in production mode on the embedded database without printing a demo key, even with DEMO_DATA=true', async () => {
      const server = new ChildServer({
        PORT: String(await freePort()),
        DATA_DIR: dataDir(),
        NODE_ENV: 'production',
        API_KEY_PEPPER: PEPPER,
        ADMIN_API_TOKEN: STRONG_ADMIN_TOKEN,
        WIDGET_TOKEN_SECRET: 'w'.repeat(16) + 'x'.repeat(16),
        PUBLIC_URL: 'https://chat.example.com',
        DEMO_DATA: 'true',
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '0',
      });
      servers.push(server);
      await server.waitFor('/health/ready');
      const live = await request({ port: server.port, path: '/health/live' });
      expect({ status: live.status, body: live.json }).toEqual({ status: 200, body: { status: 'ok' } });
      // Production mode is on: plain HTTP to the API is refused.
      const api = await request({ port: server.port, path: '/api/v1/verify' });
      expect(api.status).toBe(403);
      expect(api.json.error.code).toBe('HTTPS_REQUIRED');
      server.process.kill('SIGTERM');
      expect((await server.waitForExit(15_000)).code).toBe(0);
      expect(server.stdout).toMatch(/"msg":"Listening on http:\/\/localhost:\d+"/);
      // The log says plainly that plain HTTP will be refused, and what to set.
      const transport = server.stdout
        .split('\n')
        .filter((line) => line.includes('HTTPS_REQUIRED'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(transport).toHaveLength(1);
      expect(transport[0].level).toBe(40);
      expect(transport[0].msg).toMatch(
        /^Production mode without TLS or a trusted proxy: every request but \/health\/\* is refused with 403 HTTPS_REQUIRED\. Set TRUST_PROXY .* or TLS_CERT_FILE and TLS_KEY_FILE/,
      );
      expect(server.stdout).not.toMatch(/svc_sk_|svc_pk_|Demo tenant|Try it/);
      expect(server.stdout).not.toContain('Development mode');
      expect(server.stderr).toBe('');
    });
  });
});
