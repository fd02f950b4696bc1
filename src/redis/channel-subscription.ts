import type { Logger } from '@nestjs/common';
import type Redis from 'ioredis';

/**
 * Hears one pub/sub channel on a connection of its own (a subscribed connection can run no other
 * command). Unlike the shared client it may queue while reconnecting, since no request waits on
 * it. It subscribes at every 'ready' (the first connection and each reconnection) itself: ioredis's
 * own resubscription sends SUBSCRIBE without a handler, and a connection closed right after a
 * reconnection (Redis restarting, the app shutting down) rejected it unhandled, which ends a Node
 * process. Returns the function that closes it.
 */
export function subscribeToChannel(redis: Redis, channel: string, onMessage: (text: string) => void, logger: Logger): () => void {
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: false });
  let closed = false;
  subscriber.on('error', () => undefined);
  subscriber.on('message', (_channel: string, text: string) => onMessage(text));
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).catch((error: unknown) => {
      if (!closed) logger.warn(`Cannot subscribe to ${channel}: ${String(error)}`);
    });
  });
  return () => {
    closed = true;
    subscriber.disconnect();
  };
}
