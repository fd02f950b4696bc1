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

/**
 * The columns of a typed `select` read under a prefix (`b."id" AS "bot.id"`): one raw statement
 * reads two tables' rows whose column names overlap; `prefixedFields` takes each row back out.
 */
export function prefixedColumns(select: Readonly<Record<string, true>>, relation: string, prefix: string): Prisma.Sql {
  return Prisma.raw(
    Object.keys(select)
      .map((field) => `${relation}."${field}" AS "${prefix}.${field}"`)
      .join(', '),
  );
}

/** The fields of a `select` from a row read with `prefixedColumns(select, ..., prefix)`. */
export function prefixedFields(row: Record<string, unknown>, prefix: string, select: Readonly<Record<string, true>>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(select).map((field) => [field, row[`${prefix}.${field}`]]));
}
