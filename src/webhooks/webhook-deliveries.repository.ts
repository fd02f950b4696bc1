import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { WebhookDeliveryStatus } from '../generated/prisma/enums';
import type { Page } from '../common/paging/pagination';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

export const deliverySelect = {
  id: true,
  eventId: true,
  eventType: true,
  status: true,
  attempts: true,
  lastAttemptAt: true,
  nextAttemptAt: true,
  lastResponseStatus: true,
  lastError: true,
  createdAt: true,
} satisfies Prisma.WebhookDeliverySelect;

export type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ select: typeof deliverySelect }>;

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string, endpointId: string, status: WebhookDeliveryStatus | undefined, page: Page): Promise<DeliveryRow[]> {
    return this.prisma.webhookDelivery.findMany({
      where: { tenantId, endpointId, ...(status ? { status } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      select: deliverySelect,
    });
  }

  count(tenantId: string, endpointId: string, status: WebhookDeliveryStatus | undefined): Promise<number> {
    return this.prisma.webhookDelivery.count({ where: { tenantId, endpointId, ...(status ? { status } : {}) } });
  }

  findById(tenantId: string, deliveryId: string, tx: PrismaTransaction = this.prisma): Promise<DeliveryRow | null> {
    return tx.webhookDelivery.findFirst({ where: { tenantId, id: deliveryId }, select: deliverySelect });
  }

  /**
   * Makes a delivery due now, whatever its state (a manual retry), unless an instance holds its
   * lease (an attempt is in flight): false then, and when there is no such delivery. Attempts keep
   * counting.
   */
  async retryNow(tenantId: string, endpointId: string, deliveryId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.webhookDelivery.updateMany({
      where: { tenantId, endpointId, id: deliveryId, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      data: { status: 'pending', nextAttemptAt: now, leaseUntil: null },
    });
    return count > 0;
  }

  async exists(tenantId: string, endpointId: string, deliveryId: string): Promise<boolean> {
    return (await this.prisma.webhookDelivery.count({ where: { tenantId, endpointId, id: deliveryId } })) > 0;
  }
}
