import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { IdempotentResponse } from '../idempotency/idempotent-response';
import { assertDateRange } from '../common/paging/date-range';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { isUuid } from '../common/validation/uuid';
import { BotsRepository } from '../bots/bots.repository';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { EventRecorder } from '../events/event-recorder';
import { previousAttributesOf } from '../events/previous-attributes';
import type { LeadStatus } from '../generated/prisma/enums';
import type { CreateLeadDto } from './dto/create-lead.dto';
import { canMoveLead } from './lead-status';
import { LeadEnvelope, toLeadResponse } from './lead.mapper';
import { LeadFilter, LeadRow, LeadsRepository, NewLead } from './leads.repository';

/** A lead's contact fields; an optional field left out, empty or null is none. */
export interface LeadContact {
  name: string;
  email: string;
  phone?: string | null;
  company?: string | null;
  message?: string | null;
  tags?: string[] | null;
}

const orNull = (value: string | null | undefined) => (value ? value : null);

@Injectable()
export class LeadsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly leads: LeadsRepository,
    private readonly bots: BotsRepository,
    private readonly idempotency: IdempotencyService,
    private readonly events: EventRecorder,
  ) {}

  async listLeads(tenantId: string, filter: LeadFilter, page: Page): Promise<{ leads: LeadRow[]; pagination: Pagination }> {
    assertDateRange(filter);
    const [leads, total] = await Promise.all([this.leads.list(tenantId, filter, page), this.leads.count(tenantId, filter)]);
    return { leads, pagination: toPagination(page, total) };
  }

  async getLead(tenantId: string, leadId: string): Promise<LeadRow> {
    const lead = isUuid(leadId) ? await this.leads.findById(tenantId, leadId) : null;
    if (!lead) throw new NotFoundError('Lead');
    return lead;
  }

  /**
   * POST /api/v1/leads: captures the lead, once per Idempotency-Key when one is given. The answer
   * is built here, not in the controller, because a retry with the key gets these very bytes back.
   */
  createLead(tenantId: string, body: CreateLeadDto, idempotencyKey: string | undefined): Promise<IdempotentResponse<LeadEnvelope>> {
    const request = { method: 'POST', path: '/api/v1/leads', body };
    return this.idempotency.run(tenantId, idempotencyKey, request, async (tx) => {
      const lead = await this.captureLead(tenantId, body, tx);
      return { status: 201, location: `/api/v1/leads/${lead.id}`, body: { lead: toLeadResponse(lead) } };
    });
  }

  /**
   * A lead sent through the API: source `api`, status `new`, no conversation. A botId that is
   * not one of the tenant's bots is a validation error, never a hint that it exists elsewhere.
   */
  async captureLead(tenantId: string, contact: LeadContact & { botId?: string | null }, tx?: PrismaTransaction): Promise<LeadRow> {
    // The lead and its lead.created event commit together: in the caller's transaction, or in one of its own.
    if (!tx) return this.prisma.$transaction((own) => this.captureLead(tenantId, contact, own));
    if (contact.botId && !(await this.bots.exists(tenantId, contact.botId, tx))) {
      throw ValidationError.field('botId', 'must be the id of one of your bots');
    }
    const lead = await this.leads.create(tenantId, toNewLead(contact, { botId: contact.botId ?? null, conversationId: null, source: 'api' }), tx);
    await this.events.publish(tx, tenantId, { type: 'lead.created', object: toLeadResponse(lead) });
    return lead;
  }

  /** A lead captured in a chat, stored with the conversation that produced it. */
  async captureWidgetLead(tenantId: string, botId: string, conversationId: string, contact: LeadContact, createdAt: Date, tx: PrismaTransaction): Promise<LeadRow> {
    const lead = await this.leads.create(tenantId, { ...toNewLead(contact, { botId, conversationId, source: 'widget' }), createdAt }, tx);
    await this.events.publish(tx, tenantId, { type: 'lead.created', object: toLeadResponse(lead) });
    return lead;
  }

  /**
   * Moves a lead along the status machine; an illegal move is 409 INVALID_STATUS_TRANSITION. A
   * caller that may not read leads learns nothing of the lead from the refusal, not even its status.
   */
  async changeStatus(tenantId: string, leadId: string, to: LeadStatus, { canRead }: { canRead: boolean }): Promise<LeadRow> {
    if (!isUuid(leadId)) throw new NotFoundError('Lead');
    return this.prisma.$transaction(async (tx) => {
      const lead = await this.leads.findById(tenantId, leadId, tx);
      if (!lead) throw new NotFoundError('Lead');
      if (lead.status === to) return lead;
      const illegal = () =>
        new AppError(ErrorCode.INVALID_STATUS_TRANSITION, canRead ? `A lead cannot move from ${lead.status} to ${to}.` : `The lead's current status does not allow a move to ${to}.`);
      if (!canMoveLead(lead.status, to)) throw illegal();
      if (await this.leads.updateStatus(tenantId, leadId, lead.status, to, tx)) {
        const moved = (await this.leads.findById(tenantId, leadId, tx))!;
        await this.events.publish(tx, tenantId, {
          type: 'lead.updated',
          object: toLeadResponse(moved),
          previousAttributes: previousAttributesOf(toLeadResponse(lead), toLeadResponse(moved)),
        });
        return moved;
      }
      // A concurrent request moved the lead after it was read: the same move is then a no-op
      // (what a sequential repeat would answer), any other outcome a conflict.
      const current = await this.leads.findById(tenantId, leadId, tx);
      if (current?.status === to) return current;
      throw illegal();
    });
  }
}

function toNewLead(contact: LeadContact, origin: Pick<NewLead, 'botId' | 'conversationId' | 'source'>): NewLead {
  return {
    name: contact.name,
    email: contact.email,
    phone: orNull(contact.phone),
    company: orNull(contact.company),
    message: orNull(contact.message),
    tags: contact.tags ?? [],
    ...origin,
  };
}
