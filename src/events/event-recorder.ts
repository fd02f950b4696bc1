import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import type { PrismaTransaction } from '../database/prisma.service';
import type { Actor } from './actor';

/** A change the audit log (and, with webhooks, the tenant's systems) must hear of. */
export interface RecordedEvent {
  /** What happened, e.g. `tenant.plan_changed`, `api_key.created`, `bot.deactivated`. */
  action: string;
  targetType: string;
  targetId: string;
  data?: Prisma.InputJsonObject;
}

/**
 * The one writer of event rows (STYLE.md, Layers: Events). It writes in the caller's transaction,
 * so an event exists exactly when its change committed.
 */
@Injectable()
export class EventRecorder {
  async record(tx: PrismaTransaction, tenantId: string, actor: Actor, event: RecordedEvent): Promise<void> {
    await tx.auditEvent.create({
      data: { tenantId, actor: actor.name, requestId: actor.requestId, action: event.action, targetType: event.targetType, targetId: event.targetId, data: event.data ?? {} },
      select: { id: true },
    });
  }
}
