/** The event types a webhook endpoint can subscribe to (API_DECISIONS, Webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'lead.deleted',
  'conversation.started',
  'conversation.ended',
  'conversation.handed_off',
  'conversation.released',
  'conversation.assigned',
  'conversation.deleted',
  'message.created',
  'bot.updated',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Subscribes an endpoint to every event type, present and future. */
export const ALL_WEBHOOK_EVENTS = '*';
