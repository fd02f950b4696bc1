/** A wait in whole seconds, rounded up and at least 1: how Retry-After and the RateLimit fields count. */
export function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The Retry-After header of a refusal that lifts in `ms`, for AppError's headers. */
export function retryAfter(ms: number): { 'Retry-After': string } {
  return { 'Retry-After': String(waitSeconds(ms)) };
}
