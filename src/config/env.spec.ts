import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, configWarnings, loadConfig } from './env';

const PEPPER = 'production-pepper-0123456789abcdef';
const WIDGET_SECRET = 'production-widget-token-secret-0123456789';
const PUBLIC_URL = 'https://chat.example.com';
const PRODUCTION_BASE = { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, WIDGET_TOKEN_SECRET: WIDGET_SECRET, PUBLIC_URL };

function failureOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the defaults of API_DECISIONS (Configuration) on an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      production: false,
      database: { kind: 'embedded', dataDir: './data' },
      redisUrl: undefined,
      adminApiToken: undefined,
      apiKeyPepper: expect.any(String),
      trustProxy: undefined,
      tls: undefined,
      demoData: true,
      logLevel: 'info',
    });
    expect(loadConfig({}).apiKeyPepper.length).toBeGreaterThanOrEqual(16);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', ADMIN_API_TOKEN: '', DEMO_DATA: '' })).toMatchObject({
      port: 3000,
      database: { kind: 'embedded' },
      adminApiToken: undefined,
      demoData: true,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8443',
      DATABASE_URL: 'postgresql://app:pw@db:5432/app',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_API_TOKEN: 'admin-token-0123456789',
      API_KEY_PEPPER: PEPPER,
      TRUST_PROXY: '10.0.0.0/8, loopback',
      TLS_CERT_FILE: __filename,
      TLS_KEY_FILE: __filename,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'debug',
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_POOL_SIZE: '20',
    });
    expect(config).toMatchObject({
      port: 8443,
      production: false,
      database: { kind: 'postgres', url: 'postgresql://app:pw@db:5432/app', statementTimeoutMs: 2000, poolSize: 20 },
      redisUrl: 'redis://cache:6379',
      adminApiToken: 'admin-token-0123456789',
      apiKeyPepper: PEPPER,
      trustProxy: '10.0.0.0/8, loopback',
      tls: { certFile: __filename, keyFile: __filename },
      demoData: false,
      logLevel: 'debug',
    });
  });

  it('uses the PostgreSQL defaults for the statement timeout and pool', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://db/app',
      statementTimeoutMs: 5000,
      poolSize: 10,
    });
  });

  it('reads DATA_DIR for the embedded database', () => {
    expect(loadConfig({ DATA_DIR: '/var/lib/app' }).database).toEqual({ kind: 'embedded', dataDir: '/var/lib/app' });
  });

  it.each([
    ['true', true],
    ['false', false],
    ['loopback', 'loopback'],
    ['127.0.0.1', '127.0.0.1'],
    ['10.0.0.0/8,192.168.0.0/16', '10.0.0.0/8,192.168.0.0/16'],
    ['::1', '::1'],
  ])('accepts TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  describe('production mode', () => {
    it('requires API_KEY_PEPPER', () => {
      const error = failureOf({ NODE_ENV: 'production' });
      expect(error.message).toContain('API_KEY_PEPPER');
      expect(error.message).not.toContain('\n');
    });

    it('uses the configured pepper and never demo data, even when DEMO_DATA=true', () => {
      const config = loadConfig({ ...PRODUCTION_BASE, DEMO_DATA: 'true' });
      expect(config).toMatchObject({ production: true, apiKeyPepper: PEPPER, demoData: false });
    });

    it('requires PUBLIC_URL, in one line naming it (mailed links are built on it, never on a request’s Host)', () => {
      const { PUBLIC_URL: _, ...withoutPublicUrl } = PRODUCTION_BASE;
      const message = failureOf(withoutPublicUrl).message;
      expect(message).toMatch(/^Invalid configuration: PUBLIC_URL is required when NODE_ENV=production/);
      expect(message).not.toContain('\n');
      expect(loadConfig(PRODUCTION_BASE).publicOrigin).toBe(PUBLIC_URL);
      // Outside production it may stay unset.
      expect(loadConfig({}).publicOrigin).toBeUndefined();
    });

    it('is only NODE_ENV=production', () => {
      expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ production: false, demoData: true });
      expect(loadConfig({ NODE_ENV: 'test' }).production).toBe(false);
    });

    it.each([
      ['API_KEY_PEPPER', { API_KEY_PEPPER: 'development-only-pepper-do-not-use-in-production' }],
      ['WIDGET_TOKEN_SECRET', { WIDGET_TOKEN_SECRET: 'development-only-widget-token-secret-do-not-use-in-production' }],
    ])('refuses the built-in development %s, in one line', (variable, env) => {
      const message = failureOf({ ...PRODUCTION_BASE, ...env }).message;
      expect(message).toBe(
        `Invalid configuration: ${variable} must not be the built-in development value when NODE_ENV=production (e.g. openssl rand -hex 32)`,
      );
    });

    it('uses the built-in development values outside production, where they are the defaults', () => {
      const defaults = loadConfig({});
      expect(loadConfig({ API_KEY_PEPPER: defaults.apiKeyPepper, WIDGET_TOKEN_SECRET: defaults.widget.tokenSecret })).toMatchObject({
        apiKeyPepper: defaults.apiKeyPepper,
        widget: { tokenSecret: defaults.widget.tokenSecret },
      });
    });

    it('does not use the development pepper outside production when one is given', () => {
      expect(loadConfig({ API_KEY_PEPPER: PEPPER }).apiKeyPepper).toBe(PEPPER);
      expect(loadConfig({}).apiKeyPepper).not.toBe(PEPPER);
    });
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['DEMO_DATA', { DEMO_DATA: 'maybe' }],
    ['DEMO_DATA', { DEMO_DATA: 'TRUE' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['ADMIN_API_TOKEN', { ADMIN_API_TOKEN: 'short-token' }],
    ['API_KEY_PEPPER', { API_KEY_PEPPER: 'short' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://root@localhost/app' }],
    ['DATABASE_URL', { DATABASE_URL: 'localhost:5432' }],
    ['TLS_KEY_FILE', { TLS_CERT_FILE: __filename }],
    ['TLS_CERT_FILE', { TLS_KEY_FILE: __filename }],
    ['TRUST_PROXY', { TRUST_PROXY: 'garbage' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'loopback,not-an-ip' }],
    ['DATABASE_STATEMENT_TIMEOUT_MS', { DATABASE_STATEMENT_TIMEOUT_MS: '10' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '0' }],
    ['API_KEY_PEPPER', { NODE_ENV: 'production' }],
    ['WIDGET_TOKEN_SECRET', { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER }],
    ['PUBLIC_URL', { NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, WIDGET_TOKEN_SECRET: WIDGET_SECRET }],
  ])('stops with one line naming %s for %j', (variable, env) => {
    const error = failureOf(env);
    expect(error.message).toContain(variable);
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message.length).toBeLessThan(200);
  });

  it.each(['10.0.0.0/99', '10.0.0.0/8;evil', '127.0.0.1/'])('stops with one line naming TRUST_PROXY for the broken CIDR %s', (value) => {
    expect(failureOf({ TRUST_PROXY: value }).message).toContain('TRUST_PROXY');
  });

  it('does not print a secret it rejects', () => {
    expect(failureOf({ ADMIN_API_TOKEN: 'tok-SECRET-9' }).message).not.toContain('tok-SECRET-9');
    expect(failureOf({ API_KEY_PEPPER: 'pep-SECRET' }).message).not.toContain('pep-SECRET');
  });

  it('does not print the credentials of a rejected DATABASE_URL', () => {
    expect(failureOf({ DATABASE_URL: 'mysql://root:db-PASSWORD@localhost/app' }).message).not.toContain('db-PASSWORD');
  });

  it('accepts the boundaries of PORT', () => {
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ PORT: '1' }).port).toBe(1);
  });
});

/** The production settings every production case below starts from. */
const PRODUCTION = PRODUCTION_BASE;
const STRONG_TOKEN = 'Zq3vN8xK2mP7wR4tY9bC6dF1gH5jL0sA';

describe('loadConfig: a bad value of every configuration variable', () => {
  const badValues: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'http' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'dashboard.example.com' }],
    ['SIGNUP', { SIGNUP: 'invite-only' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.com' }],
    ['MAIL_FROM', { MAIL_FROM: 'x' }],
    ['NODE_ENV', { NODE_ENV: 'Production' }],
    ['NODE_ENV', { NODE_ENV: 'production ' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgresql://user@db host/app' }],
    ['DATABASE_URL', { DATABASE_URL: 'redis://cache:6379' }],
    ['DATA_DIR', { DATA_DIR: __filename }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: 'ten' }],
    ['DATABASE_STATEMENT_TIMEOUT_MS', { DATABASE_STATEMENT_TIMEOUT_MS: '5s' }],
    ['REDIS_URL', { REDIS_URL: 'redis://not a url' }],
    ['REDIS_URL', { REDIS_URL: 'http://cache:6379' }],
    ['REDIS_URL', { REDIS_URL: 'cache:6379' }],
    ['REDIS_URL', { REDIS_URL: 'redis://' }],
    ['REDIS_URL', { REDIS_URL: 'redis://cache:6379/zero' }],
    ['REDIS_URL', { REDIS_URL: 'redis://cache:99999' }],
    ['RATE_LIMIT_REPLICAS', { RATE_LIMIT_REPLICAS: '0' }],
    ['AUTH_FAILURE_LIMIT', { AUTH_FAILURE_LIMIT: 'many' }],
    ['PUBLIC_KEY_RATE_LIMIT', { PUBLIC_KEY_RATE_LIMIT: '0' }],
    ['WIDGET_SESSION_RATE_LIMIT', { WIDGET_SESSION_RATE_LIMIT: '0' }],
    ['SIGNUP_RATE_LIMIT', { SIGNUP_RATE_LIMIT: 'five' }],
    ['NEW_PASSWORD_RATE_LIMIT', { NEW_PASSWORD_RATE_LIMIT: '0' }],
    ['ADMIN_API_TOKEN', { ADMIN_API_TOKEN: 'short' }],
    ['API_KEY_PEPPER', { API_KEY_PEPPER: 'short' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'yes' }],
    ['TLS_CERT_FILE', { TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: __filename }],
    ['TLS_KEY_FILE', { TLS_CERT_FILE: __filename, TLS_KEY_FILE: '/nonexistent/key.pem' }],
    ['DEMO_DATA', { DEMO_DATA: 'no' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SHUTDOWN_DRAIN_MS', { SHUTDOWN_DRAIN_MS: '1e3' }],
    ['SHUTDOWN_GRACE_MS', { SHUTDOWN_GRACE_MS: '-5' }],
    ['RATE_LIMIT_MULTIPLIER', { RATE_LIMIT_MULTIPLIER: '0' }],
    ['RATE_LIMIT_DISABLED', { RATE_LIMIT_DISABLED: 'yes' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: 'localhost/8' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5,five' }],
    ['JOBS_DISABLED', { JOBS_DISABLED: 'webhooks' }],
    ['WEBHOOK_WORKER', { WEBHOOK_WORKER: 'off' }],
    ['PRIVACY_WORKER', { PRIVACY_WORKER: 'off' }],
    ['AUDIT_RETENTION_DAYS', { AUDIT_RETENTION_DAYS: '0' }],
    ['RETENTION_CHECK_SECONDS', { RETENTION_CHECK_SECONDS: '0' }],
    ['WIDGET_TOKEN_SECRET', { WIDGET_TOKEN_SECRET: 'too-short' }],
    ['LLM_BASE_URL', { LLM_BASE_URL: 'not a url' }],
    ['LLM_MODEL', { LLM_BASE_URL: 'https://llm.example.com/v1', LLM_API_KEY: 'k' }],
    ['LLM_API_KEY', { LLM_BASE_URL: 'https://llm.example.com/v1', LLM_MODEL: 'm' }],
    ['LLM_TIMEOUT_MS', { LLM_TIMEOUT_MS: '10' }],
    ['LLM_REWRITE_QUESTIONS', { LLM_REWRITE_QUESTIONS: 'sometimes' }],
    ['EMBEDDINGS_BASE_URL', { EMBEDDINGS_BASE_URL: 'not a url' }],
    ['EMBEDDINGS_MODEL', { EMBEDDINGS_BASE_URL: 'https://embed.example.com/v1', EMBEDDINGS_API_KEY: 'k' }],
    ['EMBEDDINGS_API_KEY', { EMBEDDINGS_BASE_URL: 'https://embed.example.com/v1', EMBEDDINGS_MODEL: 'm' }],
    ['EMBEDDINGS_TIMEOUT_MS', { EMBEDDINGS_TIMEOUT_MS: '10' }],
    ['EMBEDDINGS_MIN_SIMILARITY', { EMBEDDINGS_MIN_SIMILARITY: '1.5' }],
    ['EMBEDDINGS_MIN_SIMILARITY', { EMBEDDINGS_MIN_SIMILARITY: 'high' }],
    ['EMBEDDINGS_WORKER', { EMBEDDINGS_WORKER: 'off' }],
  ];

  it.each(badValues)('stops with one line naming %s for %j', (variable, env) => {
    const error = failureOf(env);
    expect(error.message).toMatch(new RegExp(`^Invalid configuration: (\\w+ and )?${variable} `));
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message.length).toBeLessThan(200);
  });

  it('covers every variable of the README configuration table', () => {
    const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const documented = [...table.matchAll(/^\| `([A-Z_]+)`(?:, `([A-Z_]+)`)? \|/gm)].flatMap(([, first, second]) => (second ? [first, second] : [first]));
    expect(documented.length).toBeGreaterThan(10);
    expect(documented.filter((name) => !badValues.some(([variable]) => variable === name))).toEqual([]);
  });

  it('does not print the credentials of a rejected REDIS_URL or DATABASE_URL', () => {
    expect(failureOf({ REDIS_URL: 'redis://:redis-PASSWORD@not a host:6379' }).message).not.toContain('redis-PASSWORD');
    expect(failureOf({ DATABASE_URL: 'postgresql://app:db-PASSWORD@db host/app' }).message).not.toContain('db-PASSWORD');
  });

  it('accepts the usual forms of REDIS_URL, DATABASE_URL and DATA_DIR', () => {
    for (const url of ['redis://cache:6379', 'rediss://:secret@cache.example.com:6380/2', 'redis://user:pw@10.0.0.5', 'redis://[::1]:6379/']) {
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
    for (const url of ['postgres://db/app', 'postgresql://app:p%40ss@db:5432/app?sslmode=require', 'postgresql:///app?host=/var/run/postgresql']) {
      expect(loadConfig({ DATABASE_URL: url }).database).toMatchObject({ kind: 'postgres', url });
    }
    expect(loadConfig({ DATA_DIR: __dirname }).database).toEqual({ kind: 'embedded', dataDir: __dirname });
    expect(loadConfig({ DATA_DIR: path.join(__dirname, 'not-yet-created') }).database).toMatchObject({ kind: 'embedded' });
    // DATA_DIR is not used (nor checked) with PostgreSQL.
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app', DATA_DIR: __filename }).database.kind).toBe('postgres');
  });
});

describe('loadConfig: ADMIN_API_TOKEN in production mode', () => {
  it.each([
    ['31 characters', 'Zq3vN8xK2mP7wR4tY9bC6dF1gH5jL0s'],
    ['the old 16-character minimum', 'admin-token-0123'],
    ['32 characters with only 7 distinct ones', 'abcdefgabcdefgabcdefgabcdefgabcd'],
    ['64 repeated characters', 'a'.repeat(64)],
  ])('refuses %s in one line naming the variable and the rule, without the value', (_name, token) => {
    const message = failureOf({ ...PRODUCTION, ADMIN_API_TOKEN: token }).message;
    expect(message).toBe('Invalid configuration: ADMIN_API_TOKEN must be at least 32 characters with at least 8 distinct characters when NODE_ENV=production');
    expect(message).not.toContain(token);
  });

  it('accepts 32 characters with 8 distinct ones, and a hex token from openssl rand -hex 32', () => {
    expect(loadConfig({ ...PRODUCTION, ADMIN_API_TOKEN: STRONG_TOKEN }).adminApiToken).toBe(STRONG_TOKEN);
    const hex = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    expect(loadConfig({ ...PRODUCTION, ADMIN_API_TOKEN: hex }).adminApiToken).toBe(hex);
  });

  it.each([
    ['abcdefgh four times', 'abcdefgh'.repeat(4)],
    ['a 10-character pattern three times and a part', 'Zq3vN8xK2m'.repeat(3) + 'Zq3v'],
    ['a 16-character pattern twice', 'Zq3vN8xK2mP7wR4t'.repeat(2)],
  ])('refuses a token that repeats a shorter pattern (%s), without the value', (_name, token) => {
    const message = failureOf({ ...PRODUCTION, ADMIN_API_TOKEN: token }).message;
    expect(message).toBe('Invalid configuration: ADMIN_API_TOKEN must not repeat a shorter pattern when NODE_ENV=production (e.g. openssl rand -hex 32)');
    expect(message).not.toContain(token);
  });

  it('accepts outside production a token that repeats a pattern (the 16-character rule only)', () => {
    expect(loadConfig({ ADMIN_API_TOKEN: 'abcdefgh'.repeat(4) }).adminApiToken).toBe('abcdefgh'.repeat(4));
  });

  it('still allows ADMIN_API_TOKEN to be unset (the admin API off)', () => {
    expect(loadConfig(PRODUCTION).adminApiToken).toBeUndefined();
  });

  it('keeps the 16-character rule outside production', () => {
    expect(loadConfig({ ADMIN_API_TOKEN: 'admin-token-0123' }).adminApiToken).toBe('admin-token-0123');
    expect(failureOf({ ADMIN_API_TOKEN: 'admin-token-012' }).message).toBe('Invalid configuration: ADMIN_API_TOKEN must be at least 16 characters');
  });
});

describe('TRUST_PROXY=true', () => {
  it.each(['true', '0.0.0.0/0', 'loopback, ::/0'])('is refused in production mode (TRUST_PROXY=%s) in one line asking for a list', (value) => {
    const message = failureOf({ ...PRODUCTION, TRUST_PROXY: value }).message;
    expect(message).toMatch(
      /^Invalid configuration: TRUST_PROXY must not trust every address when NODE_ENV=production; list the proxies as CIDR ranges or loopback\/linklocal\/uniquelocal$/,
    );
  });

  it.each(['loopback', 'uniquelocal', '10.0.0.0/8, 192.168.0.0/16', 'false'])('production mode accepts TRUST_PROXY=%s, without a warning', (value) => {
    const config = loadConfig({ ...PRODUCTION, TRUST_PROXY: value });
    expect(configWarnings(config)).toEqual([]);
  });

  it('outside production starts, with one warning naming TRUST_PROXY and suggesting a list', () => {
    const config = loadConfig({ TRUST_PROXY: 'true' });
    expect(config.trustProxy).toBe(true);
    const warnings = configWarnings(config);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('TRUST_PROXY');
    expect(warnings[0]).toMatch(/CIDR/);
    expect(warnings[0]).toMatch(/loopback\/uniquelocal/);
    expect(warnings[0]).not.toMatch(/[\r\n]/);
  });

  it('gives no warning for a list, false or unset', () => {
    for (const env of [{}, { TRUST_PROXY: 'false' }, { TRUST_PROXY: 'loopback' }, { TRUST_PROXY: '10.0.0.0/8' }]) {
      expect(configWarnings(loadConfig(env))).toEqual([]);
    }
  });
});

describe('warnings about public address space', () => {
  it.each([
    ['TRUST_PROXY', { TRUST_PROXY: '203.0.114.0/24' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'loopback, 8.8.8.8' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/7' }],
    ['TRUST_PROXY', { TRUST_PROXY: '2600::/16' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/254.0.0.0' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32, 1.0.0.0/8' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '0.0.0.0/0' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '192.168.0.0/15' }],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '::/0' }],
  ])('starts, in production too, with one warning naming %s for %j', (variable, env) => {
    for (const base of [{}, PRODUCTION]) {
      const warnings = configWarnings(loadConfig({ ...base, ...env }));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^${variable} covers public addresses \\(`));
      expect(warnings[0]).not.toMatch(/[\r\n]/);
    }
  });

  it('names only the public entries', () => {
    expect(configWarnings(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/8,8.8.8.0/24,127.0.0.1/32' }))[0]).toContain('(8.8.8.0/24)');
  });

  it('says nothing of private, loopback, link-local and unique local ranges', () => {
    const env = {
      ...PRODUCTION,
      TRUST_PROXY: 'loopback, linklocal, uniquelocal, 10.1.2.3, 172.16.0.0/12, 192.168.1.0/24, fd00::/8, ::1, 10.0.0.0/255.0.0.0',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7,::1/128,169.254.0.0/16',
    };
    expect(configWarnings(loadConfig(env))).toEqual([]);
  });
});

describe('loadConfig TLS files', () => {
  it('stops with one line naming the variable when a TLS file cannot be read', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: __filename })).toThrow(
      'Invalid configuration: TLS_CERT_FILE is not a readable file',
    );
    expect(() => loadConfig({ TLS_CERT_FILE: __filename, TLS_KEY_FILE: '/tmp' })).toThrow('Invalid configuration: TLS_KEY_FILE is not a readable file');
  });
});
