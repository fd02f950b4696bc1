/**
 * The old values of the fields a change altered, as webhooks' `previousAttributes` carries them
 * (both sides as the API returns the resource). `updatedAt` alone is no change: undefined then.
 */
export function previousAttributesOf<T extends object>(before: T, after: T): Record<string, unknown> | undefined {
  const changed = Object.entries(before).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify((after as Record<string, unknown>)[field]));
  return changed.some(([field]) => field !== 'updatedAt') ? Object.fromEntries(changed) : undefined;
}
