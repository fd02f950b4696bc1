import { ConfigError, loadConfig } from './env';

const PEPPER = 'production-pepper-0123456789abcdef';

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
    expect(loadConfig({ PORT: '', DATABASE_URL: '', ADMIN_API_TOKEN: '', DEMO_DATA: '' })).toMatchObject({ port: 3000, database: { kind: 'embedded' }, adminApiToken: undefined, demoData: true });
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
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app' }).database).toEqual({ kind: 'postgres', url: 'postgres://db/app', statementTimeoutMs: 5000, poolSize: 10 });
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
      const config = loadConfig({ NODE_ENV: 'production', API_KEY_PEPPER: PEPPER, DEMO_DATA: 'true' });
      expect(config).toMatchObject({ production: true, apiKeyPepper: PEPPER, demoData: false });
    });

    it('is only NODE_ENV=production', () => {
      expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ production: false, demoData: true });
      expect(loadConfig({ NODE_ENV: 'test' }).production).toBe(false);
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

describe('loadConfig TLS files', () => {
  it('stops with one line naming the variable when a TLS file cannot be read', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: __filename })).toThrow('Invalid configuration: TLS_CERT_FILE is not a readable file');
    expect(() => loadConfig({ TLS_CERT_FILE: __filename, TLS_KEY_FILE: '/tmp' })).toThrow('Invalid configuration: TLS_KEY_FILE is not a readable file');
  });
});
