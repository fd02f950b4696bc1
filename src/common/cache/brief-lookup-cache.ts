/**
 * Rows found by a key (a secret's digest: an API key, a session token; a tenant's month of
 * usage), trusted for `ttlMs` without asking the database again: hot rows cost no query on most
 * requests. Whoever changes
 * what a row says drops it (drop), on every instance through the invalidation bus; past the
 * lifetime it is looked up again. So a revoked credential is refused within `ttlMs` everywhere,
 * and at once on the instance that revoked it.
 *
 * Requests that miss at the same moment share one lookup: without that, every request in flight
 * when a hot entry lapses (50 at 50 connections) queried the database for the same row.
 */
export class BriefLookupCache<Row> {
  private readonly entries = new Map<string, { row: Row; until: number }>();
  private readonly lookups = new Map<string, { row: Promise<Row | null>; startedAt: number }>();
  // Bumped by every drop: a lookup that began before one may have read the old row.
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(digest: string, now: number): Row | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (entry.until > now) return entry.row;
    this.entries.delete(digest);
    return undefined;
  }

  set(digest: string, row: Row, now: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(digest, { row, until: now + this.ttlMs });
  }

  /** The cached row, or the result of `lookup`, run once for all the callers that miss together. */
  getOrLookUp(digest: string, now: number, lookup: (digest: string) => Promise<Row | null>): Promise<Row | null> {
    const cached = this.get(digest, now);
    if (cached) return Promise.resolve(cached);
    // A lookup older than the cache's lifetime is not joined: on a slow database it may have read
    // the row before a revocation whose message this instance never got, and the bound would
    // then not hold for the requests joining it.
    const pending = this.lookups.get(digest);
    if (pending && now - pending.startedAt < this.ttlMs) return pending.row;
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

  /** Drops the rows `matches` picks; lookups in flight are no longer joined nor cached. */
  drop(matches: (row: Row) => boolean): void {
    this.generation++;
    // Callers already waiting keep their lookup; later ones start a new one that sees the change.
    this.lookups.clear();
    for (const [digest, entry] of this.entries) if (matches(entry.row)) this.entries.delete(digest);
  }

  /** Puts the row its owner just wrote in place of the key's: lookups in flight, which may have read the old one, are no longer cached. */
  replace(digest: string, row: Row, now: number): void {
    this.generation++;
    this.lookups.delete(digest);
    this.set(digest, row, now);
  }

  /** Drops the row of one key, which its owner just changed, as drop does for the rows it picks. */
  dropKey(digest: string): void {
    this.generation++;
    this.lookups.delete(digest);
    this.entries.delete(digest);
  }
}
