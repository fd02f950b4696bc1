import type { Response } from 'express';

/** An answer as the idempotency layer stores and replays it. */
export interface RecordedResponse<T> {
  status: number;
  body: T;
  location: string | null;
}

export interface IdempotentResponse<T> extends RecordedResponse<T> {
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed: boolean;
}

/** Sets the status, Location and Idempotent-Replayed headers of an answer and returns its body. */
export function sendRecorded<T>(response: Response, answer: IdempotentResponse<T>): T {
  response.status(answer.status);
  if (answer.location) response.location(answer.location);
  if (answer.replayed) response.setHeader('Idempotent-Replayed', 'true');
  return answer.body;
}
