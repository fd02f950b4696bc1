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
