/**
 * Whether an endpoint may still be sent to, asked before each attempt of a delivery claimed ahead:
 * the questions asked in one turn of the event loop share one query (an attempt ending starts the
 * next few at once). When the query fails the answer is yes: the claim read the endpoint, and the
 * worker's other statements are failing too.
 */
export class SendableCheck {
  private pending = new Map<string, ((sendable: boolean) => void)[]>();

  constructor(private readonly query: (endpointIds: readonly string[]) => Promise<ReadonlySet<string>>) {}

  check(endpointId: string): Promise<boolean> {
    return new Promise((resolve) => {
      if (!this.pending.size) setImmediate(() => void this.flush());
      const waiting = this.pending.get(endpointId);
      if (waiting) waiting.push(resolve);
      else this.pending.set(endpointId, [resolve]);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    const sendable = await this.query([...batch.keys()]).catch(() => undefined);
    for (const [endpointId, answers] of batch) for (const answer of answers) answer(!sendable || sendable.has(endpointId));
  }
}
