import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';
import type { AppRequest } from '../../common/http/request-context';
import { ShutdownState } from '../../lifecycle/shutdown-state';
import { toConversationResponse, toMessageResponse, type MessageResponse } from '../conversation.mapper';
import type { ConversationRow, MessageRow } from '../conversations.repository';
import { ConversationFeed, type LiveEvent } from './conversation-feed';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;

/** Who reads a stream, and what they may see of it. */
export interface StreamAudience {
  /** Who holds the stream, for the limit (e.g. a visitor, a user, a key). */
  holder: string;
  /** Open streams the holder may have at once on this instance; beyond, 429. */
  maxStreams: number;
  /** Who the limit is for, in the 429's message ("per visitor"). */
  limitLabel: string;
  /** The messages this audience is shown. */
  shows(message: MessageResponse): boolean;
  /** The conversation's messages after `afterId`, oldest first (undefined: not one of its messages). */
  messagesAfter(afterId: string): Promise<MessageRow[] | undefined>;
}

/**
 * A conversation's live stream (server-sent events), for a visitor's widget and for the tenant's
 * people alike: `conversation` (its state: first on connect, then at every change) and `message`
 * (`id:` the message id). `Last-Event-ID` replays the messages after that one from the database
 * first, so a reconnect misses nothing. Open streams are counted per holder, per instance, and
 * all end when the instance shuts down (clients reconnect with Last-Event-ID elsewhere).
 */
@Injectable()
export class ConversationEventStreams implements BeforeApplicationShutdown {
  private readonly perHolder = new Map<string, number>();
  private readonly open = new Set<Response>();

  constructor(
    private readonly feed: ConversationFeed,
    shutdown: ShutdownState,
  ) {
    shutdown.onClosing(() => this.endAll());
  }

  beforeApplicationShutdown(): void {
    this.endAll();
  }

  /** Streams the (already authorised) conversation to the audience until either side closes. */
  async serve(audience: StreamAudience, conversation: ConversationRow, request: AppRequest, response: Response): Promise<void> {
    // The limit answers with a status and the error envelope, before the stream starts.
    const count = this.perHolder.get(audience.holder) ?? 0;
    if (count >= audience.maxStreams) {
      throw new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `At most ${audience.maxStreams} live streams ${audience.limitLabel} may be open at once.`, undefined, {
        'Retry-After': '5',
      });
    }
    this.perHolder.set(audience.holder, count + 1);

    // A stream lives as long as its reader stays: no socket timeout, nothing buffered on the way.
    request.socket.setTimeout(0);
    request.socket.setNoDelay(true);
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-store, no-transform');
    response.setHeader('Content-Encoding', 'identity');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    this.open.add(response);

    const sent = new Set<string>();
    const write = (event: LiveEvent) => {
      if (event.kind === 'message') {
        if (!audience.shows(event.message) || sent.has(event.message.id)) return;
        sent.add(event.message.id);
        response.write(`id: ${event.message.id}\nevent: message\ndata: ${JSON.stringify(event.message)}\n\n`);
      } else {
        response.write(`event: conversation\ndata: ${JSON.stringify(event.conversation)}\n\n`);
      }
    };
    // Subscribed before the replay is read: what arrives meanwhile waits, and the replay's ids are not sent twice.
    let pending: LiveEvent[] | undefined = [];
    const unsubscribe = this.feed.subscribe(conversation.id, (event) => (pending ? pending.push(event) : write(event)));
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
    response.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(response);
      const left = (this.perHolder.get(audience.holder) ?? 1) - 1;
      if (left > 0) this.perHolder.set(audience.holder, left);
      else this.perHolder.delete(audience.holder);
    });

    try {
      write({ kind: 'conversation', conversation: toConversationResponse(conversation) });
      const lastEventId = header(request, 'last-event-id');
      // An id that is not one of this conversation's messages replays nothing (a stale id is harmless).
      const missed = lastEventId ? ((await audience.messagesAfter(lastEventId)) ?? []) : [];
      for (const message of missed) write({ kind: 'message', message: toMessageResponse(message) });
    } catch {
      // The stream has started: no error answer is possible any more; the client reconnects.
      response.end();
    } finally {
      const waiting = pending;
      pending = undefined;
      if (!response.writableEnded) for (const event of waiting) write(event);
    }
  }

  /** Ends every open stream (shutdown): clients reconnect with Last-Event-ID. */
  private endAll(): void {
    for (const response of this.open) response.end();
    this.open.clear();
  }
}

function header(request: AppRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length <= 100 ? value : undefined;
}
