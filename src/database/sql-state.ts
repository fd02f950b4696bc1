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
