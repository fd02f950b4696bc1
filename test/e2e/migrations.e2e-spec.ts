import { openDatabaseConnection, openMigrationConnection, type DatabaseConnection } from '../../src/database/database-connection';
import { E2E_DATABASE_URL } from '../support/test-database';

const url = process.env[E2E_DATABASE_URL];

/**
 * Migrations build indexes over whole tables, which takes longer than a request may: the
 * connection that applies them has no statement timeout (on PostgreSQL; PGlite has none).
 */
(url ? describe : describe.skip)('the connection migrations run on (PostgreSQL)', () => {
  const config = { kind: 'postgres' as const, url: url!, statementTimeoutMs: 100, poolSize: 1 };
  const opened: DatabaseConnection[] = [];
  afterAll(() => Promise.all(opened.map((connection) => connection.close())));

  const runScript = async (connection: DatabaseConnection, script: string) => {
    opened.push(connection);
    const adapter = await connection.adapterFactory.connect();
    return adapter.executeScript(script);
  };

  it('stops a statement longer than DATABASE_STATEMENT_TIMEOUT_MS on the request connection', async () => {
    await expect(runScript(await openDatabaseConnection(config), 'SELECT pg_sleep(0.5)')).rejects.toThrow();
  });

  it('lets a statement run past DATABASE_STATEMENT_TIMEOUT_MS on the migration connection', async () => {
    await expect(runScript(await openMigrationConnection(config), 'SELECT pg_sleep(0.5)')).resolves.toBeUndefined();
  });
});
