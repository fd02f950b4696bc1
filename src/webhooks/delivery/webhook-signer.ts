import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../webhook-secret';

/**
 * The Standard Webhooks headers of one attempt: the event id (the same on every retry), the
 * attempt's Unix time, and one `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` per live secret.
 */
export function signatureHeaders(eventId: string, timestampSeconds: number, body: string, secrets: readonly string[]): Record<string, string> {
  const signed = `${eventId}.${timestampSeconds}.${body}`;
  const signatures = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64'))
        .update(signed)
        .digest('base64')}`,
  );
  return { 'webhook-id': eventId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}

/**
 * The body of every attempt of an event, `{ id, type, createdAt, data }`: the same bytes each time.
 * `data` is the stored JSON text (the outbox writes JSON.stringify's output, and a json column
 * keeps it as written), spliced in rather than parsed and serialized again per attempt; the
 * result is what JSON.stringify of the parsed event gave before.
 */
export function webhookBody(event: { id: string; type: string; createdAt: Date; data: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"createdAt":"${event.createdAt.toISOString()}","data":${event.data}}`;
}
