import { BeforeApplicationShutdown, Inject, Injectable, Optional } from '@nestjs/common';
import type { Response } from 'express';
import type { AppRequest } from '../../common/http/request-context';
import { ShutdownState } from '../../lifecycle/shutdown-state';
import { clientIp } from '../../rate-limit/client-ip';
import { toConversationResponse, toMessageResponse, type MessageResponse } from '../conversation.mapper';
import type { ConversationRow, MessageRow } from '../conversations.repository';
import type { LiveEvent } from '../../events/event-catalogue';
import { LiveFeed } from '../../events/live-feed';
import { EventStreamResponse } from './event-stream-response';
import { DEFAULT_LIVE_STREAM_OPTIONS, LIVE_STREAM_OPTIONS, type LiveStreamOptions } from './live-stream-options';
import { OpenStreamLimits } from './open-stream-limits';

/** Open streams of one conversation on an instance, whoever holds them; beyond, 429. */
export const MAX_STREAMS_PER_CONVERSATION = 20;

/** Open streams from one client address (IPv6: its /64) on an instance, whoever holds them; beyond, 429. */
export const MAX_STREAMS_PER_CLIENT_IP = 10;

/** The limits every live stream has, for the endpoints' descriptions (OpenAPI). */
export const LIVE_STREAM_LIMITS_DESCRIPTION =
  `At most ${MAX_STREAMS_PER_CONVERSATION} streams per conversation and ${MAX_STREAMS_PER_CLIENT_IP} per client address are open at once on an instance (429 beyond). ` +
  'A stream ends after an hour, and as soon as more than 256 KB wait for a reader that does not read: reconnect with `Last-Event-ID`.';

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
 * first, so a reconnect misses nothing. Open streams are counted per holder, per conversation and
 * per client address, on each instance. A stream ends after its lifetime, when its reader falls too
 * far behind (EventStreamResponse) and when the instance shuts down; clients reconnect with
 * Last-Event-ID.
 */
@Injectable()
export class ConversationEventStreams implements BeforeApplicationShutdown {
  private readonly limits = new OpenStreamLimits();
  private readonly open = new Set<EventStreamResponse>();
  private readonly options: LiveStreamOptions;

  constructor(
    private readonly feed: LiveFeed,
    shutdown: ShutdownState,
    @Optional() @Inject(LIVE_STREAM_OPTIONS) options?: LiveStreamOptions,
  ) {
    this.options = options ?? DEFAULT_LIVE_STREAM_OPTIONS;
    shutdown.onClosing(() => this.endAll());
  }

  beforeApplicationShutdown(): void {
    this.endAll();
  }

  /** Streams the (already authorised) conversation to the audience until either side closes. */
  async serve(audience: StreamAudience, conversation: ConversationRow, request: AppRequest, response: Response): Promise<void> {
    // The limits answer with a status and the error envelope, before the stream starts.
    const release = this.limits.claim([
      { key: `holder:${audience.holder}`, max: audience.maxStreams, label: audience.limitLabel },
      { key: `conversation:${conversation.id}`, max: MAX_STREAMS_PER_CONVERSATION, label: 'per conversation' },
      { key: `ip:${clientIp(request)}`, max: MAX_STREAMS_PER_CLIENT_IP, label: 'per client address' },
    ]);
    const stream = EventStreamResponse.start(request, response, this.options);
    this.open.add(stream);

    const sent = new Set<string>();
    const write = (event: LiveEvent) => {
      if (event.kind === 'message') {
        if (!audience.shows(event.message) || sent.has(event.message.id)) return;
        sent.add(event.message.id);
        stream.send(`id: ${event.message.id}\nevent: message\ndata: ${JSON.stringify(event.message)}\n\n`);
      } else {
        stream.send(`event: conversation\ndata: ${JSON.stringify(event.conversation)}\n\n`);
      }
    };
    // Subscribed before the replay is read: what arrives meanwhile waits, and the replay's ids are
    // not sent twice. What waits counts against the backlog limit as if it were sent.
    let pending: LiveEvent[] | undefined = [];
    let pendingBytes = 0;
    const unsubscribe = this.feed.subscribe(conversation.id, (event) => {
      if (!pending) return write(event);
      pending.push(event);
      pendingBytes += Buffer.byteLength(JSON.stringify(event));
      if (!stream.fits(pendingBytes)) stream.cutOff();
    });
    stream.onClose(() => {
      unsubscribe();
      this.open.delete(stream);
      release();
    });

    try {
      write({ kind: 'conversation', conversation: toConversationResponse(conversation) });
      const lastEventId = header(request, 'last-event-id');
      // An id that is not one of this conversation's messages replays nothing (a stale id is harmless).
      const missed = lastEventId ? ((await audience.messagesAfter(lastEventId)) ?? []) : [];
      for (const message of missed) {
        // Read from the database, so it can wait for the reader: a slow one is not cut off by its own replay.
        await stream.drained();
        write({ kind: 'message', message: toMessageResponse(message) });
      }
    } catch {
      // The stream has started: no error answer is possible any more; the client reconnects.
      stream.end();
    } finally {
      const waiting = pending;
      pending = undefined;
      for (const event of waiting) write(event);
    }
  }

  /** Ends every open stream (shutdown): clients reconnect with Last-Event-ID. */
  private endAll(): void {
    for (const stream of this.open) stream.end();
    this.open.clear();
  }
}

function header(request: AppRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length <= 100 ? value : undefined;
}
