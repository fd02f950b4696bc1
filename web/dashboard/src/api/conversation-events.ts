import { createParser } from 'eventsource-parser';
import type { Schemas } from './client';

export type Message = Schemas['MessageResponse'];
export type Conversation = Schemas['ConversationResponse'];

/** The state of a followed stream, for the page to say. */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface ConversationListener {
  message(message: Message): void;
  conversation(conversation: Conversation): void;
  state(state: StreamState, problem?: string): void;
}

/** Waits between reconnections: 1 s, then doubling up to 15 s (reset once a stream is live). */
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 15_000;

/**
 * Follows a conversation's live stream (GET /api/v1/conversations/:id/events) until the returned
 * function is called. It is read with fetch, not EventSource, which cannot send X-Tenant-Id; a
 * dropped stream reconnects with Last-Event-ID (the last message's id), so nothing is missed.
 * A refusal that a retry cannot mend (the conversation is gone, the session ended) stops it.
 */
export function followConversation(conversationId: string, tenantId: string, listener: ConversationListener): () => void {
  const aborted = new AbortController();
  let lastEventId: string | undefined;
  let wait = FIRST_RETRY_MS;

  const connect = async (): Promise<void> => {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'X-Tenant-Id': tenantId };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const response = await fetch(`/api/v1/conversations/${encodeURIComponent(conversationId)}/events`, {
      headers,
      credentials: 'same-origin',
      signal: aborted.signal,
    });
    if (!response.ok || !response.body) {
      const retry = response.status === 429 || response.status >= 500;
      const problem = response.status === 404 ? 'This conversation no longer exists.' : `The live updates stopped (${response.status}).`;
      if (!retry) throw new Stop(problem);
      throw new Error(problem);
    }
    listener.state('live');
    wait = FIRST_RETRY_MS;
    const parser = createParser({
      onEvent(event) {
        if (event.event === 'message') {
          if (event.id) lastEventId = event.id;
          listener.message(JSON.parse(event.data) as Message);
        } else if (event.event === 'conversation') {
          listener.conversation(JSON.parse(event.data) as Conversation);
        }
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  };

  void (async () => {
    listener.state('connecting');
    while (!aborted.signal.aborted) {
      try {
        await connect();
      } catch (error) {
        if (aborted.signal.aborted) return;
        if (error instanceof Stop) {
          listener.state('closed', error.message);
          return;
        }
      }
      if (aborted.signal.aborted) return;
      // The stream ended (a deploy, a dropped connection): try again, a little later each time.
      listener.state('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, LAST_RETRY_MS);
    }
  })();

  return () => aborted.abort();
}

class Stop extends Error {}
