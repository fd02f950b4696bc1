import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../common/errors/app-error';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { IdempotentResponse } from '../idempotency/idempotent-response';
import type { PersonDto } from './dto/person.dto';
import { ErasureWorker } from './erasure-worker';
import { ErasureRow, ErasuresRepository } from './erasures.repository';
import { PeopleRepository, PersonQuery } from './people.repository';
import { ErasureEnvelope, PersonExportResponse, toErasureResponse, toPersonExport } from './privacy.mapper';

@Injectable()
export class PrivacyService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly people: PeopleRepository,
    private readonly erasures: ErasuresRepository,
    private readonly idempotency: IdempotencyService,
    private readonly events: EventRecorder,
    private readonly worker: ErasureWorker,
  ) {}

  /** POST /api/v1/privacy/exports: everything the tenant holds on the person, and nothing else. */
  async exportPerson(tenantId: string, body: PersonDto, actor: Actor): Promise<PersonExportResponse> {
    const person = await this.people.find(tenantId, personQuery(body));
    const [leads, conversations, messages] = await Promise.all([
      this.people.leads(tenantId, person.leadIds),
      this.people.conversations(tenantId, person.conversationIds),
      this.people.messages(tenantId, person.conversationIds),
    ]);
    await this.events.record(this.prisma, tenantId, actor, {
      action: 'privacy.exported',
      targetId: '-',
      data: { leads: leads.length, conversations: conversations.length },
    });
    return toPersonExport(leads, conversations, messages);
  }

  /**
   * POST /api/v1/privacy/erasures: finds the person's rows now and queues their erasure, which
   * the background worker carries out (ErasureWorker). The audit row names the erasure only.
   */
  async requestErasure(tenantId: string, body: PersonDto, actor: Actor, idempotencyKey: string | undefined): Promise<IdempotentResponse<ErasureEnvelope>> {
    const query = personQuery(body);
    const request = { method: 'POST', path: '/api/v1/privacy/erasures', body: query };
    const answer = await this.idempotency.run(tenantId, idempotencyKey, request, async (tx) => {
      const person = await this.people.find(tenantId, query, tx);
      const messages = await this.people.countMessages(tenantId, person.conversationIds, tx);
      const erasure = await this.erasures.create(tenantId, person, messages, tx);
      await this.events.record(tx, tenantId, actor, { action: 'privacy.erasure_requested', targetId: erasure.id });
      return { status: 202, location: null, body: { erasure: toErasureResponse(erasure) } };
    });
    // Committed: this instance's worker starts on it now instead of at its next poll.
    this.worker.wake();
    return answer;
  }

  async getErasure(tenantId: string, erasureId: string): Promise<ErasureRow> {
    const erasure = await this.erasures.findById(tenantId, erasureId);
    if (!erasure) throw new NotFoundError('Erasure');
    return erasure;
  }
}

/**
 * Exactly one of `email`, `visitorId` and `externalId`. (The messages of the first two kept as
 * they were before `externalId`: clients may match them.)
 */
function personQuery(body: PersonDto): PersonQuery {
  if (body.email !== undefined && body.visitorId !== undefined) throw ValidationError.field('email', 'give either email or visitorId, not both');
  if (body.externalId !== undefined && (body.email !== undefined || body.visitorId !== undefined)) {
    throw ValidationError.field('externalId', 'give only one of email, visitorId and externalId');
  }
  if (body.email !== undefined) return { email: body.email };
  if (body.visitorId !== undefined) return { visitorId: body.visitorId };
  if (body.externalId !== undefined) return { externalId: body.externalId };
  throw ValidationError.field('email', 'give email or visitorId');
}
