import { Injectable } from '@nestjs/common';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import type { AuthenticatedKeyRow } from './api-keys.repository';

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

type KeyLookup = (digest: string) => Promise<AuthenticatedKeyRow | null>;

/**
 * Verified keys by digest, for one second: hot keys cost no query on most requests. Deletion and
 * plan changes invalidate the tenant's entries on every instance (InvalidationBus); expiry is
 * checked against the cached expiresAt on every use. So a deleted or expired key is refused within
 * one second everywhere, and at once on the instance that deleted it.
 *
 * Requests that miss at the same moment share one lookup: without that, every request in flight
 * when a hot key's entry lapses (50 at 50 connections) queried the database for the same row.
 */
@Injectable()
export class ApiKeyCache {
  private readonly entries = new Map<string, { row: AuthenticatedKeyRow; until: number }>();
  private readonly lookups = new Map<string, { row: Promise<AuthenticatedKeyRow | null>; startedAt: number }>();
  // Bumped by every invalidation: a lookup that began before one may have read the old row.
  private generation = 0;

  constructor(bus: InvalidationBus) {
    bus.onChange((tenantId) => this.dropTenant(tenantId));
  }

  get(digest: string, now: number): AuthenticatedKeyRow | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (entry.until > now) return entry.row;
    this.entries.delete(digest);
    return undefined;
  }

  set(digest: string, row: AuthenticatedKeyRow, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(digest, { row, until: now + KEY_CACHE_TTL_MS });
  }

  /** The cached row, or the result of `lookup`, run once for all the callers that miss together. */
  getOrLookUp(digest: string, now: number, lookup: KeyLookup): Promise<AuthenticatedKeyRow | null> {
    const cached = this.get(digest, now);
    if (cached) return Promise.resolve(cached);
    // A lookup older than the cache's lifetime is not joined: on a slow database it may have read
    // the row before a deletion whose invalidation message this instance never got, and the
    // one-second bound would then not hold for the requests joining it.
    const pending = this.lookups.get(digest);
    if (pending && now - pending.startedAt < KEY_CACHE_TTL_MS) return pending.row;
    const generation = this.generation;
    const started = {
      row: lookup(digest).then((row) => {
        if (row && generation === this.generation) this.set(digest, row, now);
        return row;
      }),
      startedAt: now,
    };
    this.lookups.set(digest, started);
    const forget = () => {
      if (this.lookups.get(digest) === started) this.lookups.delete(digest);
    };
    started.row.then(forget, forget);
    return started.row;
  }

  private dropTenant(tenantId: string): void {
    this.generation++;
    // Callers already waiting keep their lookup; later ones start a new one that sees the change.
    this.lookups.clear();
    for (const [digest, entry] of this.entries) if (entry.row.tenantId === tenantId) this.entries.delete(digest);
  }
}
