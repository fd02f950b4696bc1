import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { v7 } from 'uuid';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { IdempotentResponse } from '../idempotency/idempotent-response';
import { assertDateRange } from '../common/paging/date-range';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { assertSomethingSent, changedFields } from '../common/validation/changed-fields';
import { BotsRepository } from '../bots/bots.repository';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { Changes, type TransactionChanges } from '../events/changes';
import { EventRecorder, type PublishedEvent } from '../events/event-recorder';
import { previousAttributesOf } from '../events/previous-attributes';
import type { CreateLeadDto } from './dto/create-lead.dto';
import type { UpdateLeadDto } from './dto/update-lead.dto';
import { canMoveLead } from './lead-status';
import { LeadEnvelope, LeadResponse, toLeadResponse } from './lead.mapper';
import { LeadChanges, LeadFilter, LeadRow, LeadsRepository } from './leads.repository';

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
    private readonly changes: Changes,
  ) {}

  async listLeads(tenantId: string, filter: LeadFilter, page: Page): Promise<{ leads: LeadRow[]; pagination: Pagination }> {
    assertDateRange(filter);
    const { leads, total } = await this.leads.listPage(tenantId, filter, page);
    return { leads, pagination: toPagination(page, total) };
  }

  async getLead(tenantId: string, leadId: string): Promise<LeadRow> {
    const lead = await this.leads.findById(tenantId, leadId);
    if (!lead) throw new NotFoundError('Lead');
    return lead;
  }

  /**
   * POST /api/v1/leads: captures the lead, once per Idempotency-Key when one is given. The answer
   * is built here, not in the controller, because a retry with the key gets these very bytes back.
   * With a key, the key's claim and stored answer go in the lead's own statement (runAlong).
   */
  createLead(tenantId: string, body: CreateLeadDto, idempotencyKey: string | undefined): Promise<IdempotentResponse<LeadEnvelope>> {
    const lead = newLead(body, { botId: body.botId ?? null, conversationId: null, source: 'api' });
    const answer = { status: 201, location: `/api/v1/leads/${lead.id}`, body: { lead: toLeadResponse(lead) } };
    const request = { method: 'POST', path: '/api/v1/leads', body };
    return this.idempotency.runAlong(
      tenantId,
      idempotencyKey,
      request,
      answer,
      async (claim) => {
        const ownBot = this.leads.ownBot(tenantId, lead.botId);
        const written = this.written(tenantId, [lead], claim ? Prisma.sql`${claim.claimed} AND ${ownBot}` : ownBot);
        return (await this.changes.along(tenantId, written.insert, written.events, claim?.ctes(ownBot))).length > 0;
      },
      unknownBot,
    );
  }

  /**
   * A lead sent through the API (the demo data's): source `api`, status `new`, no conversation. A
   * botId that is not one of the tenant's bots is a validation error, never a hint that it exists elsewhere.
   */
  async captureLead(tenantId: string, contact: LeadContact & { botId?: string | null }): Promise<LeadRow> {
    const lead = newLead(contact, { botId: contact.botId ?? null, conversationId: null, source: 'api' });
    const written = this.written(tenantId, [lead]);
    if (!(await this.changes.along(tenantId, written.insert, written.events)).length) throw unknownBot();
    return lead;
  }

  /** A lead captured in a chat (source `widget`), stored in the transaction of the conversation that produced it. */
  async captureChatLead(
    changes: TransactionChanges,
    tenantId: string,
    origin: { botId: string; conversationId: string },
    contact: LeadContact,
    createdAt: Date,
  ): Promise<LeadRow> {
    const lead = newLead(contact, { ...origin, source: 'widget' }, createdAt);
    const written = this.written(tenantId, [lead]);
    if (!(await changes.emitAlong(written.insert, written.events)).length) throw new NotFoundError('Bot');
    return lead;
  }

  /**
   * PATCH /api/v1/leads/:id: any of the lead's fields, the status along the status machine (an
   * illegal move is 409 INVALID_STATUS_TRANSITION). A caller that may not read leads learns
   * nothing of the lead from the refusal, not even its status. Nothing changed: nothing written,
   * `updatedAt` kept, no event.
   */
  async updateLead(tenantId: string, leadId: string, input: UpdateLeadDto, { canRead }: { canRead: boolean }): Promise<LeadRow> {
    assertSomethingSent(input);
    return this.prisma.$transaction(async (tx) => {
      const lead = await this.leads.findForUpdate(tenantId, leadId, tx);
      if (!lead) throw new NotFoundError('Lead');
      const changes = changedLeadFields(lead, input);
      if (changes.status && !canMoveLead(lead.status, changes.status)) {
        throw new AppError(
          ErrorCode.INVALID_STATUS_TRANSITION,
          canRead ? `A lead cannot move from ${lead.status} to ${changes.status}.` : `The lead's current status does not allow a move to ${changes.status}.`,
        );
      }
      if (!Object.keys(changes).length) return lead;
      const updated = await this.leads.update(tenantId, leadId, changes, tx);
      const [before, after] = [toLeadResponse(lead), toLeadResponse(updated)];
      await this.events.publish(tx, tenantId, { type: 'lead.updated', object: after, previousAttributes: previousAttributesOf(before, after) });
      return updated;
    });
  }

  /**
   * DELETE /api/v1/leads/:id: the lead goes, with a `lead.deleted` event that carries its id only
   * (a deleted person's data is not sent anywhere again) and an audit row naming who deleted it.
   */
  async deleteLead(tenantId: string, leadId: string, actor: Actor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      if (!(await this.leads.delete(tenantId, leadId, tx))) throw new NotFoundError('Lead');
      await this.events.publish(tx, tenantId, { type: 'lead.deleted', object: { id: leadId } });
      await this.events.record(tx, tenantId, actor, { action: 'lead.deleted', targetId: leadId });
    });
  }

  /**
   * POST /api/v1/leads/import: up to 1,000 leads, all or nothing, in one transaction with one
   * multi-row insert (a lead at a time took N round trips), with their lead.created events.
   */
  importLeads(tenantId: string, leads: CreateLeadDto[], idempotencyKey: string | undefined): Promise<IdempotentResponse<ImportedLeads>> {
    const request = { method: 'POST', path: '/api/v1/leads/import', body: { leads } };
    return this.changes.transaction(
      tenantId,
      async (changes) => {
        await this.assertOwnBots(tenantId, leads, changes.tx);
        const now = new Date();
        const rows = leads.map((lead) => newLead(lead, { botId: lead.botId ?? null, conversationId: null, source: 'import' }, now));
        const written = this.written(tenantId, rows, Prisma.sql`true`);
        await changes.emitAlong(written.insert, written.events);
        const created = rows.map(toLeadResponse);
        return { status: 201, location: null, body: { imported: created.length, leads: created } };
      },
      (work) => this.idempotency.run(tenantId, idempotencyKey, request, work),
    );
  }

  /**
   * The one way leads are written: their INSERT and their lead.created events, for one statement
   * (Changes.along, or emitAlong in a transaction), so a lead exists exactly when its event does.
   * Every value is made before (newLead), so that the events are built before the statement.
   */
  private written(tenantId: string, leads: LeadRow[], condition?: Prisma.Sql): { insert: Prisma.Sql; events: PublishedEvent[] } {
    return {
      insert: this.leads.insertStatement(tenantId, leads, condition),
      events: leads.map((lead) => ({ type: 'lead.created', object: toLeadResponse(lead) })),
    };
  }

  /**
   * The leads matching the list's filters, newest first, in batches read one after the other (a
   * keyset on the list's order: each batch is one indexed read, memory stays one batch). The first
   * batch is read before this returns, so that a failure is still an error answer, not a cut file.
   */
  async exportLeads(tenantId: string, filter: LeadFilter): Promise<AsyncIterable<LeadRow>> {
    assertDateRange(filter);
    const first = await this.leads.batchAfter(tenantId, filter, undefined, EXPORT_BATCH_SIZE);
    const leads = this.leads;
    return (async function* () {
      let batch = first;
      while (batch.length) {
        yield* batch;
        if (batch.length < EXPORT_BATCH_SIZE) return;
        const last = batch[batch.length - 1];
        batch = await leads.batchAfter(tenantId, filter, { createdAt: last.createdAt, id: last.id }, EXPORT_BATCH_SIZE);
      }
    })();
  }

  /** Every botId of an import must be one of the tenant's bots; each other one is named. */
  private async assertOwnBots(tenantId: string, leads: CreateLeadDto[], tx: PrismaTransaction): Promise<void> {
    const botIds = [...new Set(leads.map((lead) => lead.botId).filter((botId): botId is string => !!botId))];
    if (!botIds.length) return;
    const own = new Set(await this.bots.existingIds(tenantId, botIds, tx));
    const details = leads.flatMap((lead, i) =>
      lead.botId && !own.has(lead.botId) ? [{ field: `leads[${i}].botId`, message: 'must be the id of one of your bots' }] : [],
    );
    if (details.length) throw new ValidationError(details);
  }
}

/** The answer to an import; `leads` is left out for a key without leads:read. */
export interface ImportedLeads {
  imported: number;
  leads?: LeadResponse[];
}

/** Leads per read of an export: big enough to amortise the round trip, small in memory. */
const EXPORT_BATCH_SIZE = 1_000;

/** The fields of `input` whose normalised value differs from the lead's. */
function changedLeadFields(lead: LeadRow, input: UpdateLeadDto): LeadChanges {
  return changedFields<LeadChanges>(lead, {
    name: input.name,
    email: input.email,
    status: input.status,
    phone: input.phone === undefined ? undefined : orNull(input.phone),
    company: input.company === undefined ? undefined : orNull(input.company),
    message: input.message === undefined ? undefined : orNull(input.message),
    tags: input.tags === undefined ? undefined : (input.tags ?? []),
  });
}

/** A new lead with every value made here (id, times): status `new`. */
function newLead(contact: LeadContact, origin: Pick<LeadRow, 'botId' | 'conversationId' | 'source'>, createdAt = new Date()): LeadRow {
  return {
    id: v7(),
    name: contact.name,
    email: contact.email,
    phone: orNull(contact.phone),
    company: orNull(contact.company),
    message: orNull(contact.message),
    tags: contact.tags ?? [],
    ...origin,
    status: 'new',
    createdAt,
    updatedAt: createdAt,
  };
}

function unknownBot(): ValidationError {
  return ValidationError.field('botId', 'must be the id of one of your bots');
}
