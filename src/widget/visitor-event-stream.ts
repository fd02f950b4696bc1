import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest, VisitorPrincipal } from '../common/http/request-context';
import { toConversationResponse, toMessageResponse, type MessageResponse } from '../conversations/conversation.mapper';
import { ConversationFeed, type LiveEvent } from '../conversations/live/conversation-feed';
import { ShutdownState } from '../lifecycle/shutdown-state';
import { WidgetCaller, WidgetService } from './widget.service';

/** Open streams one visitor may hold at once (two tabs); beyond, 429. */
export const MAX_STREAMS_PER_VISITOR = 2;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;

/**
 * The widget's live stream of a conversation (server-sent events): `message` (agent and assistant
 * messages, `id:` the message id) and `conversation` (its state: first on connect, then every
 * change). `Last-Event-ID` replays the messages after that one from the database first, so a
 * reconnect misses nothing. Counting open streams per visitor is per instance.
 */
@Injectable()
export class VisitorEventStream implements BeforeApplicationShutdown {
  private readonly perVisitor = new Map<string, number>();
  private readonly open = new Set<Response>();

  constructor(
    private readonly widget: WidgetService,
    private readonly feed: ConversationFeed,
    shutdown: ShutdownState,
  ) {
    shutdown.onClosing(() => this.endAll());
  }

  beforeApplicationShutdown(): void {
    this.endAll();
  }

  async serve(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, request: AppRequest, response: Response): Promise<void> {
    // Every check answers with a status and the error envelope, before the stream starts.
    const conversation = await this.widget.streamedConversation(caller, visitor, conversationId);
    const visitorKey = `${caller.tenantId}:${visitor.visitorId}`;
    const count = this.perVisitor.get(visitorKey) ?? 0;
    if (count >= MAX_STREAMS_PER_VISITOR) {
      throw new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `At most ${MAX_STREAMS_PER_VISITOR} live streams per visitor may be open at once.`, undefined, {
        'Retry-After': '5',
      });
    }
    this.perVisitor.set(visitorKey, count + 1);

    // A stream lives as long as the visitor stays: no socket timeout, nothing buffered on the way.
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
        if (event.message.role === 'user' || sent.has(event.message.id)) return;
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
      const left = (this.perVisitor.get(visitorKey) ?? 1) - 1;
      if (left > 0) this.perVisitor.set(visitorKey, left);
      else this.perVisitor.delete(visitorKey);
    });

    try {
      write({ kind: 'conversation', conversation: toConversationResponse(conversation) });
      const lastEventId = header(request, 'last-event-id');
      // An id that is not one of this conversation's messages replays nothing (a stale id is harmless).
      const missed: MessageResponse[] = lastEventId
        ? ((await this.widget.missedMessages(caller, conversation.id, lastEventId)) ?? []).map(toMessageResponse)
        : [];
      for (const message of missed) write({ kind: 'message', message });
    } catch {
      // The stream has started: no error answer is possible any more; the widget reconnects.
      response.end();
    } finally {
      const waiting = pending;
      pending = undefined;
      if (!response.writableEnded) for (const event of waiting) write(event);
    }
  }

  /** Ends every open stream (shutdown): the widget reconnects with Last-Event-ID. */
  private endAll(): void {
    for (const response of this.open) response.end();
    this.open.clear();
  }
}

function header(request: AppRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length <= 100 ? value : undefined;
}
