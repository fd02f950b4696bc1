import { Prisma } from '../generated/prisma/client';

/**
 * The columns of a typed `select` for raw SQL (`"id", "name"` or `lead."id", ...`), so that a
 * $queryRaw reads what the typed query would (the schema maps no field to another column name).
 */
export function selectColumns(select: Readonly<Record<string, true>>, relation?: string): Prisma.Sql {
  const prefix = relation ? `${relation}.` : '';
  return Prisma.raw(
    Object.keys(select)
      .map((field) => `${prefix}"${field}"`)
      .join(', '),
  );
}
