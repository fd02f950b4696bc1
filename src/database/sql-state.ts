import { Prisma } from '../generated/prisma/client';

/**
 * The PostgreSQL SQLSTATE behind a Prisma error raised by the driver adapter
 * (`meta.driverAdapterError.cause`), e.g. `55P03` or `57P03`; undefined for any other error.
 */
export function sqlStateOf(error: unknown): unknown {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return undefined;
  const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } } | undefined)?.driverAdapterError?.cause;
  return cause?.originalCode ?? cause?.code;
}

/**
 * The driver adapter's kind of error behind a Prisma error (`DatabaseNotReachable`,
 * `ConnectionClosed`, ...): raw queries report a lost server as P2010 with only this to tell.
 */
export function driverErrorKindOf(error: unknown): string | undefined {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return undefined;
  const kind = (error.meta as { driverAdapterError?: { cause?: { kind?: unknown } } } | undefined)?.driverAdapterError?.cause?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

/** The command that creates or completes the schema, named wherever a missing one is reported. */
export const MIGRATE_COMMAND = 'npm run db:migrate';

/**
 * P2021/P2022: Prisma's "table (column) does not exist"; 42P01 undefined_table, 42703
 * undefined_column and 3F000 invalid_schema_name as raw queries report them.
 */
const SCHEMA_MISSING_PRISMA_CODES = new Set(['P2021', 'P2022']);
const SCHEMA_MISSING_SQLSTATES = new Set(['42P01', '42703', '3F000']);

/** Whether an error says the database lacks the schema: not migrated, or migrated to an older version. */
export function isSchemaMissing(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && SCHEMA_MISSING_PRISMA_CODES.has(error.code)) return true;
  const state = sqlStateOf(error) ?? (error as { code?: unknown } | null)?.code;
  return typeof state === 'string' && SCHEMA_MISSING_SQLSTATES.has(state);
}

/**
 * One line saying why a database call failed, never empty: a missing schema names the command
 * that fixes it; otherwise the first non-empty line of the message (Prisma's often starts with a
 * line break), else the error's code or name.
 */
export function describeDatabaseError(error: unknown): string {
  if (isSchemaMissing(error)) return `the database is not migrated (a table or column is missing): run ${MIGRATE_COMMAND}`;
  if (!(error instanceof Error)) return String(error) || 'unknown error';
  const line = error.message
    .split('\n')
    .map((text) => text.trim())
    .find(Boolean);
  const code = (error as { code?: unknown }).code;
  return line ?? (typeof code === 'string' ? `${error.name} ${code}` : error.name);
}
