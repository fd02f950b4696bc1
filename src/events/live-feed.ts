import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { subscribeToChannel } from '../redis/channel-subscription';
import { REDIS_CLIENT } from '../redis/redis.module';
import type { LiveEvent } from './event-catalogue';

const CHANNEL = 'chatbots:conversation-feed';

type Listener = (event: LiveEvent) => void;

interface Envelope {
  /** The instance that published it: it has already told its own listeners. */
  origin: string;
  conversationId: string;
  /** One commit's events of the conversation, in order (an older instance sends one `event`). */
  events?: LiveEvent[];
  event?: LiveEvent;
}

/**
 * Committed changes of conversations, as they happen, for the streams open on any instance
 * (API_DECISIONS part 3: an agent message posted on one instance reaches a stream on another within
 * a second). Only Changes publishes here, after the commit of what it recorded; the streams
 * subscribe. Listeners here hear at once; with REDIS_URL, the other instances hear through pub/sub
 * on a subscriber connection of its own (as InvalidationBus), one message per commit and
 * conversation. Best effort: a message lost while Redis is down is still in the database, where
 * the widget's polling (`messages?after=`) and a stream's `Last-Event-ID` find it.
 */
@Injectable()
export class LiveFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(LiveFeed.name);
  private readonly instance = randomUUID();
  private readonly listeners = new Map<string, Set<Listener>>();
  private unsubscribe?: () => void;

  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null) {}

  onModuleInit(): void {
    if (!this.redis) return;
    this.unsubscribe = subscribeToChannel(this.redis, CHANNEL, (text) => this.received(text), this.logger);
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
  }

  /** Hears the conversation's events until the returned function is called. */
  subscribe(conversationId: string, listener: Listener): () => void {
    const set = this.listeners.get(conversationId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(conversationId, set);
    return () => {
      set.delete(listener);
      if (!set.size) this.listeners.delete(conversationId);
    };
  }

  /** Announces one commit's events of a conversation: here at once, elsewhere through Redis when configured. Never throws. */
  async publish(conversationId: string, events: readonly LiveEvent[]): Promise<void> {
    if (!events.length) return;
    for (const event of events) this.deliver(conversationId, event);
    if (!this.redis) return;
    const envelope: Envelope = { origin: this.instance, conversationId, events: [...events] };
    await this.redis.publish(CHANNEL, JSON.stringify(envelope)).catch((error: unknown) => {
      this.logger.warn(
        `Conversation events not published (other instances' widgets catch up by polling): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  private received(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (envelope.origin === this.instance) return;
    for (const event of envelope.events ?? (envelope.event ? [envelope.event] : [])) this.deliver(envelope.conversationId, event);
  }

  private deliver(conversationId: string, event: LiveEvent): void {
    for (const listener of this.listeners.get(conversationId) ?? []) listener(event);
  }
}
