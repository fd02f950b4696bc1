import { mkdir } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Logger } from '@nestjs/common';
import { Client, Pool } from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { AppConfig } from '../config/env';

/** The database the app talks to, with the driver adapter Prisma and the schema engine use. */
export interface DatabaseConnection {
  kind: 'postgres' | 'embedded';
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** A cheap round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const DATABASE_CONNECTION = Symbol('DATABASE_CONNECTION');

/** The extensions the migrations create (search indexes), loaded into every embedded database. */
export const EMBEDDED_EXTENSIONS = { pg_trgm, btree_gin };

/**
 * The database for applying migrations: without the per-request statement timeout, which an index
 * built over a big table would exceed (the migration would fail and be left for manual repair).
 */
export function openMigrationConnection(config: AppConfig['database']): Promise<DatabaseConnection> {
  return openDatabaseConnection(config.kind === 'postgres' ? { ...config, statementTimeoutMs: 0 } : config);
}

export async function openDatabaseConnection(config: AppConfig['database']): Promise<DatabaseConnection> {
  if (config.kind === 'postgres') return openPostgres(config);
  compileWebAssemblyWithLiftoffOnly();
  await mkdir(config.dataDir, { recursive: true });
  return openEmbedded(await PGlite.create({ dataDir: config.dataDir, extensions: EMBEDDED_EXTENSIONS, startParams: EMBEDDED_START_PARAMS }));
}

/**
 * Compiles the WebAssembly loaded from now on (PGlite, then Prisma's query compiler) with V8's
 * baseline compiler only. V8 otherwise recompiles hot functions with TurboFan on background
 * threads, and their compiler memory stays resident: 60-70 MB of malloc arenas for PGlite alone
 * (RSS after the first start 351 -> 235 MB, after a restart 303 -> 229 MB). The optimised code
 * saved nothing measurable on these queries (PGlite alone: 330 against 283-347 µs a query).
 * Not a NODE_OPTIONS flag, so it is set here, before the first module is compiled.
 */
function compileWebAssemblyWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * PGlite's start parameters, with PostgreSQL's memory settings sized for one process serving one
 * connection: WebAssembly memory only grows, so every buffer the server touches stays resident.
 * shared_buffers 128 MB (PostgreSQL's default) is sized for many backends sharing a cache; 16 MB
 * cut the resident memory after a start by 88 MB (423 -> 335 MB; 544 -> 448 MB on a first start,
 * which also migrates and seeds the demo data), the file system caching the data files anyway.
 */
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * A pg client that closes its connection when a query gets no answer within query_timeout (a
 * frozen or unreachable server). pg answers the caller with an error but keeps the query active
 * on the connection, so the next query on it (the ROLLBACK of the failed transaction) would wait
 * a whole timeout more behind it; closed, the connection fails at once and the pool drops it.
 */
class ClosingOnTimeoutClient extends Client {
  override query(...args: unknown[]): never {
    const result = (Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout')
          (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      });
    }
    return result as never;
  }
}

function openPostgres(config: Extract<AppConfig['database'], { kind: 'postgres' }>): DatabaseConnection {
  const pool = new Pool({
    Client: ClosingOnTimeoutClient,
    connectionString: config.url,
    max: config.poolSize,
    // A request waits at most 2 s for a pooled connection, then gets 503 (pool exhausted).
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
    // 0 (migrations): no limit, as an index built over a big table may take minutes.
    statement_timeout: config.statementTimeoutMs || undefined,
    // The driver adapter sends dates as UTC wall-clock times without a zone; the session zone must
    // be UTC for timestamptz comparisons to be right whatever the server's default.
    // No JIT: the service's statements run for milliseconds, and the planner's cost of one with
    // correlated subqueries (the analytics overview's conversations, ~600,000 after an update of
    // many rows) passes jit_inline_above_cost, so PostgreSQL spent 530 ms compiling a query that ran
    // in 3 ms (2.5 overviews a second at 5 connections on the 1M-message seed; 22 without JIT).
    options: '-c TimeZone=UTC -c jit=off',
    query_timeout: config.statementTimeoutMs ? config.statementTimeoutMs + 1_000 : undefined,
  });
  // An idle client losing its server emits 'error' on the pool; unhandled, it would end the process.
  const logger = new Logger('Database');
  pool.on('error', (error) => logger.warn(`PostgreSQL connection lost: ${error.message}`));
  return {
    kind: 'postgres',
    adapterFactory: runScriptsWhole(new PrismaPg(pool), (script) => pool.query(script)),
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: once(() => pool.end()),
  };
}

/** Wraps an open PGlite database (the embedded default, and the tests' copies of it). */
export function openEmbedded(pglite: PGlite): DatabaseConnection {
  return {
    kind: 'embedded',
    adapterFactory: runScriptsWhole(new PrismaPGlite(pglite), (script) => pglite.exec(script)),
    ping: async () => {
      await pglite.query('SELECT 1');
    },
    close: once(() => pglite.close()),
  };
}

/**
 * Migration scripts hold PL/pgSQL bodies with semicolons inside dollar quotes. The pg adapter
 * splits scripts at every semicolon and the PGlite adapter does not await them, so each script
 * is sent whole, as one simple query that PostgreSQL runs atomically, and awaited.
 */
function runScriptsWhole<T extends SqlMigrationAwareDriverAdapterFactory>(factory: T, execute: (script: string) => Promise<unknown>): T {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    adapter.executeScript = async (script: string) => {
      await execute(script);
    };
    return adapter;
  };
  return factory;
}

/** Closing twice (two apps on one connection in tests, or shutdown racing an error) is harmless. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}
