import type { Logger } from '@nestjs/common';
import type Redis from 'ioredis';

/**
 * Hears one pub/sub channel on a connection of its own (a subscribed connection can run no other
 * command). Unlike the shared client it may queue while reconnecting, since no request waits on
 * it; ioredis subscribes again after a reconnect. Returns the function that closes it.
 */
export function subscribeToChannel(redis: Redis, channel: string, onMessage: (text: string) => void, logger: Logger): () => void {
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on('error', () => undefined);
  subscriber.on('message', (_channel: string, text: string) => onMessage(text));
  subscriber.subscribe(channel).catch((error: unknown) => logger.warn(`Cannot subscribe to ${channel}: ${String(error)}`));
  return () => subscriber.disconnect();
}
