import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { DatabaseConnection, EMBEDDED_EXTENSIONS, openDatabaseConnection, openEmbedded } from '../../src/database/database-connection';
import { generateApiKey } from '../../src/tenancy/api-keys/api-key-format';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';

/**
 * An empty database, as an operator gets it before `npm run db:migrate`: a fresh PostgreSQL
 * database (dropped afterwards) with DATABASE_URL, otherwise a fresh in-memory PGlite.
 */
async function openEmptyDatabase(): Promise<{ connection: DatabaseConnection; drop: () => Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return { connection: openEmbedded(await PGlite.create({ extensions: EMBEDDED_EXTENSIONS })), drop: async () => undefined };
  const name = `e2e_empty_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const connection = await openDatabaseConnection({ kind: 'postgres', url: url.toString(), statementTimeoutMs: 10_000, poolSize: 2 });
  return {
    connection,
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

describe('A database that is not migrated', () => {
  let t: TestApp;
  let drop: () => Promise<void>;
  let warnings: jest.SpyInstance;
  let errors: jest.SpyInstance;
  const key = generateApiKey('secret');

  beforeAll(async () => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const empty = await openEmptyDatabase();
    drop = empty.drop;
    // The webhook worker on, polling every 500 ms as in production.
    t = await createTestApp({ WEBHOOK_WORKER: 'true' }, { connection: empty.connection });
  });

  afterAll(async () => {
    await t?.close();
    await drop?.();
    warnings.mockRestore();
    errors.mockRestore();
  });

  const logged = (spy: jest.SpyInstance, text: string) => spy.mock.calls.map((call) => String(call[0])).filter((line) => line.includes(text));

  it('is not ready: /health/ready is 503 naming the cause and the command', async () => {
    const response = await t.http().get('/health/ready').expect(503);
    expect(response.body).toMatchObject({
      status: 'error',
      error: { database: { status: 'down', message: 'not migrated (no tables): run npm run db:migrate' } },
    });
  });

  it.each([
    ['GET /api/v1/verify', () => t.http().get('/api/v1/verify').set('X-API-Key', key)],
    ['GET /api/v1/leads', () => t.http().get('/api/v1/leads').set('X-API-Key', key)],
    ['POST /admin/v1/tenants', () => t.admin().post('/admin/v1/tenants').send({ name: 'Acme', slug: 'acme', plan: 'pro' })],
  ])('answers %s with 503 SERVICE_UNAVAILABLE and Retry-After, never 500', async (_route, send) => {
    const response = await send();
    expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(response.headers['retry-after']).toBe('5');
  });

  it('logs the missing schema with the command once, not once per request', async () => {
    for (let i = 0; i < 5; i++) await t.http().get('/api/v1/verify').set('X-API-Key', key).expect(503);
    const lines = logged(errors, 'Answering 503');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('run npm run db:migrate');
  });

  it('has the webhook worker log one line with the reason and back off, instead of one line per poll', async () => {
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const lines = logged(warnings, 'Cannot claim webhook deliveries');
    expect(lines).toEqual([
      'Cannot claim webhook deliveries: the database is not migrated (a table or column is missing): run npm run db:migrate; retrying with backoff up to 30 s',
    ]);
  });
});
