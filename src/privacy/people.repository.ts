import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { conversationSelect, messageSelect, type ConversationRow, type MessageRow } from '../conversations/conversations.repository';
import { leadSelect, type LeadRow } from '../leads/leads.repository';

/** How a request names the person: an e-mail address, a widget visitor id, or the tenant's own id of its user (Visitor.externalId). */
export type PersonQuery = { email: string } | { visitorId: string } | { externalId: string };

/** Everything that identifies one person in a tenant, and the rows that hold their data. */
export interface Person {
  emails: string[];
  names: string[];
  visitorIds: string[];
  leadIds: string[];
  conversationIds: string[];
}

/** Rounds of "leads of these conversations, conversations of these leads and visitors": a chain longer than this is not one person. */
const MAX_ROUNDS = 4;

/**
 * Finds a person's rows: the leads with the e-mail (compared case-insensitively), the
 * conversations of those leads, the conversations of the visitors those conversations had, and
 * the leads captured in any of them, until nothing new turns up. An identified visitor (Visitor
 * row) among them adds its e-mail and name; an external id names its visitor.
 */
@Injectable()
export class PeopleRepository {
  constructor(private readonly prisma: PrismaService) {}

  async find(tenantId: string, query: PersonQuery, tx: PrismaTransaction = this.prisma): Promise<Person> {
    const emails = new Set('email' in query ? [query.email.toLowerCase()] : []);
    const visitorIds = new Set('visitorId' in query ? [query.visitorId] : []);
    if ('externalId' in query) {
      const visitor = await tx.visitor.findUnique({ where: { tenantId_externalId: { tenantId, externalId: query.externalId } }, select: { id: true } });
      if (visitor) visitorIds.add(visitor.id);
    }
    const visitorNames = new Set<string>();
    const leads = new Map<string, { email: string; name: string }>();
    const conversationIds = new Set<string>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = leads.size + conversationIds.size;
      const foundLeads = await tx.lead.findMany({
        where: {
          tenantId,
          OR: [...[...emails].map((email) => ({ email: { equals: email, mode: 'insensitive' as const } })), { conversationId: { in: [...conversationIds] } }],
        },
        select: { id: true, email: true, name: true, conversationId: true },
      });
      for (const lead of foundLeads) {
        leads.set(lead.id, lead);
        emails.add(lead.email.toLowerCase());
        if (lead.conversationId) conversationIds.add(lead.conversationId);
      }
      const foundConversations = await tx.conversation.findMany({
        where: { tenantId, OR: [{ visitorId: { in: [...visitorIds] } }, { leadId: { in: [...leads.keys()] } }, { id: { in: [...conversationIds] } }] },
        select: { id: true, visitorId: true, leadId: true },
      });
      for (const conversation of foundConversations) {
        conversationIds.add(conversation.id);
        if (conversation.visitorId) visitorIds.add(conversation.visitorId);
      }
      for (const visitor of await tx.visitor.findMany({ where: { tenantId, id: { in: [...visitorIds] } }, select: { email: true, name: true } })) {
        if (visitor.email) emails.add(visitor.email.toLowerCase());
        if (visitor.name) visitorNames.add(visitor.name);
      }
      const linkedLeads = foundConversations.map((c) => c.leadId).filter((id): id is string => !!id && !leads.has(id));
      if (linkedLeads.length) {
        for (const lead of await tx.lead.findMany({ where: { tenantId, id: { in: linkedLeads } }, select: { id: true, email: true, name: true } })) {
          leads.set(lead.id, lead);
          emails.add(lead.email.toLowerCase());
        }
      }
      if (leads.size + conversationIds.size === before && round > 0) break;
    }
    const exactEmails = [...leads.values()].map((lead) => lead.email);
    return {
      emails: [...new Set([...emails, ...exactEmails])],
      names: [...new Set([...[...leads.values()].map((lead) => lead.name), ...visitorNames])],
      visitorIds: [...visitorIds],
      leadIds: [...leads.keys()],
      conversationIds: [...conversationIds],
    };
  }

  countMessages(tenantId: string, conversationIds: string[], tx: PrismaTransaction = this.prisma): Promise<number> {
    return tx.message.count({ where: { tenantId, conversationId: { in: conversationIds } } });
  }

  leads(tenantId: string, leadIds: string[]): Promise<LeadRow[]> {
    return this.prisma.lead.findMany({ where: { tenantId, id: { in: leadIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: leadSelect });
  }

  conversations(tenantId: string, conversationIds: string[]): Promise<ConversationRow[]> {
    return this.prisma.conversation.findMany({
      where: { tenantId, id: { in: conversationIds } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: conversationSelect,
    });
  }

  messages(tenantId: string, conversationIds: string[]): Promise<MessageRow[]> {
    return this.prisma.message.findMany({
      where: { tenantId, conversationId: { in: conversationIds } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: messageSelect,
    });
  }
}
