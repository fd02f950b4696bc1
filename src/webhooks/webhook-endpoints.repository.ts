import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

export const webhookSelect = {
  id: true,
  url: true,
  events: true,
  description: true,
  enabled: true,
  disabledReason: true,
  pausedUntil: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.WebhookEndpointSelect;

export type WebhookRow = Prisma.WebhookEndpointGetPayload<{ select: typeof webhookSelect }>;

export interface WebhookChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
  disabledReason?: string | null;
  /** Cleared with the run of unreachable attempts when the URL changes or the endpoint is enabled: a fresh start. */
  pausedUntil?: null;
  unreachableStreak?: 0;
  pauses?: 0;
}

@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string): Promise<WebhookRow[]> {
    return this.prisma.webhookEndpoint.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: webhookSelect });
  }

  findById(tenantId: string, webhookId: string, tx: PrismaTransaction = this.prisma): Promise<WebhookRow | null> {
    return tx.webhookEndpoint.findFirst({ where: { tenantId, id: webhookId }, select: webhookSelect });
  }

  count(tenantId: string, tx: PrismaTransaction): Promise<number> {
    return tx.webhookEndpoint.count({ where: { tenantId } });
  }

  create(tenantId: string, data: { url: string; events: string[]; description: string | null; secret: string }, tx: PrismaTransaction): Promise<WebhookRow> {
    return tx.webhookEndpoint.create({ data: { tenantId, ...data }, select: webhookSelect });
  }

  async update(tenantId: string, webhookId: string, data: WebhookChanges, tx: PrismaTransaction = this.prisma): Promise<WebhookRow | null> {
    const { count } = await tx.webhookEndpoint.updateMany({ where: { tenantId, id: webhookId }, data });
    return count ? this.findById(tenantId, webhookId, tx) : null;
  }

  /**
   * Replaces the secret if it is still `current`, which becomes the previous one. Null when the
   * endpoint is gone or another rotation replaced `current` first.
   */
  async replaceSecret(
    tenantId: string,
    webhookId: string,
    current: string,
    secret: string,
    previousSecretExpiresAt: Date,
    tx: PrismaTransaction,
  ): Promise<WebhookRow | null> {
    const { count } = await tx.webhookEndpoint.updateMany({
      where: { tenantId, id: webhookId, secret: current },
      data: { secret, previousSecret: current, previousSecretExpiresAt },
    });
    return count ? this.findById(tenantId, webhookId, tx) : null;
  }

  /** The current secret, for a rotation: it becomes the previous one. */
  async secretOf(tenantId: string, webhookId: string, tx: PrismaTransaction): Promise<string | null> {
    const row = await tx.webhookEndpoint.findFirst({ where: { tenantId, id: webhookId }, select: { secret: true } });
    return row?.secret ?? null;
  }

  async delete(tenantId: string, webhookId: string, tx: PrismaTransaction = this.prisma): Promise<boolean> {
    const { count } = await tx.webhookEndpoint.deleteMany({ where: { tenantId, id: webhookId } });
    return count > 0;
  }
}
