import type { BotResponse } from '../bots/bot.mapper';
import type { ConversationResponse, MessageResponse } from '../conversations/conversation.mapper';
import type { LeadResponse } from '../leads/lead.mapper';

/**
 * Every event the service writes, in one place (STYLE.md, Events): the webhook event types with
 * the type of the `object` each carries, and the audit actions with the kind of thing each acts
 * on. The lists the DTOs, the OpenAPI document and the tests need are derived from here, so a new
 * event touches this file and the code that emits it, and the compiler checks its payload there.
 * Only types are imported from the features (.dependency-cruiser.cjs allows that here alone).
 */

/** Names a payload type in the catalogue; the value itself is never read. */
interface Payload<T> {
  readonly payload?: T;
}
const payload = <T extends object>(): Payload<T> => ({});

/** What a deletion event carries: the id alone, so that a deleted person's data is sent nowhere again. */
export interface DeletedObject {
  id: string;
}

const WEBHOOK_EVENTS = {
  'lead.created': payload<LeadResponse>(),
  'lead.updated': payload<LeadResponse>(),
  'lead.deleted': payload<DeletedObject>(),
  'conversation.started': payload<ConversationResponse>(),
  'conversation.ended': payload<ConversationResponse>(),
  'conversation.handed_off': payload<ConversationResponse>(),
  'conversation.released': payload<ConversationResponse>(),
  'conversation.assigned': payload<ConversationResponse>(),
  'conversation.deleted': payload<DeletedObject>(),
  'message.created': payload<MessageResponse>(),
  'bot.updated': payload<BotResponse>(),
  /** `POST /api/v1/webhooks/:id/test` sends `{id, message}`; tests queue objects of their own. */
  'webhook.test': payload<Record<string, unknown>>(),
};

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;

/** The `object` an event of `type` carries: the resource exactly as the API returns it. */
export type WebhookPayload<K extends WebhookEventType> = (typeof WEBHOOK_EVENTS)[K] extends Payload<infer T> ? T : never;

/** The event types a webhook endpoint can subscribe to, in the catalogue's order (API_DECISIONS, Webhooks). */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as readonly WebhookEventType[];

/** Subscribes an endpoint to every event type, present and future. */
export const ALL_WEBHOOK_EVENTS = '*';

/** An endpoint's `events`: the event types, or `*` for all. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...WEBHOOK_EVENT_TYPES, ALL_WEBHOOK_EVENTS];

/**
 * What a conversation's live streams (the visitor's widget, the inbox) show: a new message, or the
 * conversation's new state. Each is handed over after the commit of the catalogue event it comes
 * from (LIVE_EVENTS), by Changes, so a change is recorded and announced by one call.
 */
export type LiveEvent = { kind: 'message'; message: MessageResponse } | { kind: 'conversation'; conversation: ConversationResponse };

/** Changes the live streams show that no webhook announces: a visitor starts or stops waiting for a person. */
const LIVE_ONLY_EVENTS = {
  'conversation.waiting_changed': payload<ConversationResponse>(),
};

export type LiveOnlyEventType = keyof typeof LIVE_ONLY_EVENTS;

export const LIVE_ONLY_EVENT_TYPES = Object.keys(LIVE_ONLY_EVENTS) as readonly LiveOnlyEventType[];

/** The events the live streams show, and which of their streams' kinds each becomes. */
export const LIVE_EVENTS: Partial<Record<WebhookEventType | LiveOnlyEventType, LiveEvent['kind']>> = {
  'message.created': 'message',
  'conversation.started': 'conversation',
  'conversation.handed_off': 'conversation',
  'conversation.released': 'conversation',
  'conversation.assigned': 'conversation',
  'conversation.ended': 'conversation',
  'conversation.waiting_changed': 'conversation',
};

/** The object a live-only event of `type` carries. */
export type LiveOnlyPayload<K extends LiveOnlyEventType> = (typeof LIVE_ONLY_EVENTS)[K] extends Payload<infer T> ? T : never;

/** Each audit action and the `targetType` its rows carry. */
const AUDIT_ACTIONS = {
  'tenant.created': 'tenant',
  'tenant.renamed': 'tenant',
  'tenant.plan_changed': 'tenant',
  'settings.updated': 'tenant',
  'identity_secret.created': 'tenant',
  'identity_secret.deleted': 'tenant',
  'api_key.created': 'api_key',
  'api_key.deleted': 'api_key',
  'bot.created': 'bot',
  'bot.updated': 'bot',
  'bot.activated': 'bot',
  'bot.deactivated': 'bot',
  'bot.settings_updated': 'bot',
  'knowledge_document.created': 'knowledge_document',
  'knowledge_document.updated': 'knowledge_document',
  'knowledge_document.deleted': 'knowledge_document',
  'conversation.recorded': 'conversation',
  'conversation.assigned': 'conversation',
  'conversation.deleted': 'conversation',
  'lead.deleted': 'lead',
  'webhook.created': 'webhook',
  'webhook.updated': 'webhook',
  'webhook.deleted': 'webhook',
  'webhook.secret_rotated': 'webhook',
  /** By the delivery worker: the receiver answered 410, or failed for 5 days. */
  'webhook.disabled': 'webhook',
  'member.added': 'user',
  'member.role_changed': 'user',
  'member.removed': 'user',
  'invitation.created': 'invitation',
  'invitation.deleted': 'invitation',
  'privacy.exported': 'person',
  'privacy.erasure_requested': 'privacy_erasure',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as readonly AuditAction[];

/** The kinds of thing audit rows name, each once, in the catalogue's order. */
export const AUDIT_TARGET_TYPES: readonly string[] = [...new Set(Object.values(AUDIT_ACTIONS))];

/** The `targetType` of an action's rows. */
export const auditTargetOf = (action: AuditAction): string => AUDIT_ACTIONS[action];
