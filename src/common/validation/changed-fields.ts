import { ValidationError } from '../errors/app-error';

/**
 * The entries of `wanted` whose value differs from the current one (compared as JSON, so arrays by
 * content); undefined means "not sent" and is left out. What a partial update should write: a
 * PATCH that sends the current values writes nothing, so `updatedAt` and the audit log stay as
 * they are.
 */
export function changedFields<T extends object>(current: T, wanted: Partial<T>): Partial<T> {
  return Object.fromEntries(
    Object.entries(wanted).filter(
      ([field, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify((current as Record<string, unknown>)[field]),
    ),
  ) as Partial<T>;
}

/** A PATCH body that sends no field (all undefined) is refused: 400, `body` must change something. */
export function assertSomethingSent(body: object): void {
  if (!Object.values(body).some((value) => value !== undefined)) throw ValidationError.field('body', 'must have at least one field to change');
}
