import { Inject, Injectable } from '@nestjs/common';
import type { BlockList } from 'node:net';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { ALL_WEBHOOK_EVENTS } from '../events/event-catalogue';
import type { WebhookDeliveryStatus } from '../generated/prisma/enums';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { DeliveryRow, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookChanges, WebhookEndpointsRepository, WebhookRow } from './webhook-endpoints.repository';
import { EndpointDeletions } from './endpoint-deletions';
import { generateWebhookSecret } from './webhook-secret';
import { allowedRanges, webhookUrlProblem } from './webhook-url';

/** API_DECISIONS, Webhooks: at most 20 per tenant. */
export const MAX_WEBHOOKS_PER_TENANT = 20;
/** After a rotation the previous secret keeps signing for 24 hours. */
const PREVIOUS_SECRET_LIFETIME_MS = 86_400_000;

export interface WebhookInput {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

@Injectable()
export class WebhooksService {
  private readonly allowed: BlockList;

  constructor(
    private readonly prisma: PrismaService,
    private readonly webhooks: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly tenants: TenantsRepository,
    private readonly events: EventRecorder,
    private readonly deletions: EndpointDeletions,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.allowed = allowedRanges(config.webhooks.allowedCidrs);
  }

  listWebhooks(tenantId: string): Promise<WebhookRow[]> {
    return this.webhooks.list(tenantId);
  }

  async getWebhook(tenantId: string, webhookId: string): Promise<WebhookRow> {
    const webhook = await this.webhooks.findById(tenantId, webhookId);
    if (!webhook) throw new NotFoundError('Webhook');
    return webhook;
  }

  /** Creates an endpoint within the per-tenant limit; the secret is in this answer only. */
  async createWebhook(
    tenantId: string,
    input: Required<Pick<WebhookInput, 'url' | 'events'>> & WebhookInput,
    actor: Actor,
  ): Promise<{ webhook: WebhookRow; secret: string }> {
    const fields = this.checked(input);
    const secret = generateWebhookSecret();
    const webhook = await this.prisma.$transaction(async (tx) => {
      // Two concurrent creates must not both see room for one more endpoint.
      await this.tenants.lock(tenantId, tx);
      if ((await this.webhooks.count(tenantId, tx)) >= MAX_WEBHOOKS_PER_TENANT) {
        throw new AppError(ErrorCode.PLAN_LIMIT_REACHED, `A tenant can have at most ${MAX_WEBHOOKS_PER_TENANT} webhook endpoints.`);
      }
      const created = await this.webhooks.create(tenantId, { url: fields.url!, events: fields.events!, description: fields.description ?? null, secret }, tx);
      await this.events.record(tx, tenantId, actor, {
        action: 'webhook.created',
        targetId: created.id,
        data: { url: created.url, events: created.events },
      });
      return created;
    });
    return { webhook, secret };
  }

  async updateWebhook(tenantId: string, webhookId: string, input: WebhookInput, actor: Actor): Promise<WebhookRow> {
    const changes: WebhookChanges = this.checked(input);
    if (input.enabled !== undefined) {
      changes.enabled = input.enabled;
      changes.disabledReason = input.enabled ? null : 'manual';
    }
    // A new URL, or an endpoint switched on, is tried again at once rather than after its pause.
    if (input.url !== undefined || input.enabled === true) Object.assign(changes, { pausedUntil: null, unreachableStreak: 0, pauses: 0 });
    return this.prisma.$transaction(async (tx) => {
      const updated = await this.webhooks.update(tenantId, webhookId, changes, tx);
      if (!updated) throw new NotFoundError('Webhook');
      await this.events.record(tx, tenantId, actor, {
        action: 'webhook.updated',
        targetId: webhookId,
        data: { fields: Object.keys(input) },
      });
      return updated;
    });
  }

  async deleteWebhook(tenantId: string, webhookId: string, actor: Actor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      // Its pending deliveries go with it (the foreign keys cascade).
      if (!(await this.webhooks.delete(tenantId, webhookId, tx))) throw new NotFoundError('Webhook');
      await this.events.record(tx, tenantId, actor, { action: 'webhook.deleted', targetId: webhookId });
    });
    // Committed: this process's worker sends nothing more to it, before the caller hears 204.
    this.deletions.deleted(webhookId);
  }

  /** A new secret; the previous one keeps signing for 24 hours, so receivers can switch without loss. */
  async rotateSecret(tenantId: string, webhookId: string, actor: Actor, now = new Date()): Promise<{ webhook: WebhookRow; secret: string }> {
    const secret = generateWebhookSecret();
    const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_LIFETIME_MS);
    const webhook = await this.prisma.$transaction(async (tx) => {
      // Concurrent rotations: the secret is replaced only if it is still the one read (the later
      // update waits for the earlier one's row lock, then finds the secret changed and reads it
      // again), so each answered secret is the previous one of the next rotation and keeps signing.
      for (;;) {
        const current = await this.webhooks.secretOf(tenantId, webhookId, tx);
        if (!current) throw new NotFoundError('Webhook');
        const updated = await this.webhooks.replaceSecret(tenantId, webhookId, current, secret, expiresAt, tx);
        if (!updated) continue;
        await this.events.record(tx, tenantId, actor, { action: 'webhook.secret_rotated', targetId: webhookId });
        return updated;
      }
    });
    return { webhook, secret };
  }

  /** Queues a `webhook.test` event for this endpoint alone, enabled or not. */
  async sendTest(tenantId: string, webhookId: string): Promise<DeliveryRow> {
    return this.prisma.$transaction(async (tx) => {
      const queued = await this.events.publish(
        tx,
        tenantId,
        { type: 'webhook.test', object: { id: webhookId, message: 'A test event from the chatbot platform.' } },
        webhookId,
      );
      // Nothing queued: no endpoint of this tenant has this id (or it was just deleted).
      if (!queued) throw new NotFoundError('Webhook');
      return (await this.deliveries.findById(tenantId, queued.deliveryIds[0], tx))!;
    });
  }

  async listDeliveries(
    tenantId: string,
    webhookId: string,
    status: WebhookDeliveryStatus | undefined,
    page: Page,
  ): Promise<{ deliveries: DeliveryRow[]; pagination: Pagination }> {
    await this.getWebhook(tenantId, webhookId);
    const [deliveries, total] = await Promise.all([
      this.deliveries.list(tenantId, webhookId, status, page),
      this.deliveries.count(tenantId, webhookId, status),
    ]);
    return { deliveries, pagination: toPagination(page, total) };
  }

  /** A new attempt now; not while one is in flight, which would send the event twice at once. */
  async retryDelivery(tenantId: string, webhookId: string, deliveryId: string, now = new Date()): Promise<DeliveryRow> {
    if (!(await this.deliveries.retryNow(tenantId, webhookId, deliveryId, now))) {
      if (await this.deliveries.exists(tenantId, webhookId, deliveryId))
        throw new AppError(ErrorCode.DELIVERY_IN_FLIGHT, 'The delivery is being sent right now; retry it once this attempt is recorded.');
      throw new NotFoundError('Delivery');
    }
    const delivery = await this.deliveries.findById(tenantId, deliveryId);
    if (!delivery) throw new NotFoundError('Delivery');
    return delivery;
  }

  /** The meaning checks the DTOs cannot make: the URL against the allowed ranges, `*` on its own. */
  private checked(input: WebhookInput): WebhookChanges {
    const changes: WebhookChanges = {};
    if (input.url !== undefined) {
      const problem = webhookUrlProblem(input.url, this.allowed);
      if (problem) throw ValidationError.field('url', problem);
      changes.url = input.url;
    }
    if (input.events !== undefined) {
      const events = [...new Set(input.events)];
      if (events.includes(ALL_WEBHOOK_EVENTS) && events.length > 1) throw ValidationError.field('events', 'must be ["*"] alone or a list of event types');
      changes.events = events;
    }
    if (input.description !== undefined) changes.description = input.description;
    return changes;
  }
}
