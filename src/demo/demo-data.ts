import { Injectable } from '@nestjs/common';
import { PasswordHasher } from '../accounts/passwords/password-hasher';
import { UsersRepository } from '../accounts/users/users.repository';
import { BotsService } from '../bots/bots.service';
import { ConversationsService } from '../conversations/conversations.service';
import { SYSTEM_ACTOR } from '../events/actor';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { LeadsService } from '../leads/leads.service';
import { ApiKeysService } from '../tenancy/api-keys/api-keys.service';
import { ALL_SCOPES } from '../common/access/scopes';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { TenantsService } from '../tenancy/tenants.service';

const HOUR = 3_600_000;

/**
 * The demo tenant's owner, to sign in to the dashboard at once. Known on purpose: demo data exists
 * only outside production (loadConfig turns DEMO_DATA off there), on a developer's own machine.
 */
export const DEMO_LOGIN = { email: 'demo@example.com', password: 'demo-password' } as const;
const DEMO_SLUG = 'demo';

export interface DemoTenant {
  tenantId: string;
  /** The new secret key, on the start that created the demo tenant only. */
  key?: string;
  /** The new public key (the widget's) and the bot the demo page shows, on that start only. */
  widget?: { publicKey: string; botId: string };
}

const CONVERSATIONS = [
  {
    visitor: 'visitor-1001',
    status: 'ended',
    lead: { name: 'Ada Lovelace', email: 'ada@analytical.example', company: 'Analytical Engines Ltd', phone: '+44 20 7946 0001' },
    lines: ['Hi, do you offer annual billing?', 'Yes: annual plans are two months cheaper. Shall I send details?', 'Please, to ada@analytical.example.'],
  },
  {
    visitor: 'visitor-1002',
    status: 'ended',
    lead: { name: 'Grace Hopper', email: 'grace@cobol.example', company: 'Compiler Works' },
    lines: ['Can the bot answer in Spanish?', 'It can: set the bot language to es in Settings.'],
  },
  { visitor: 'visitor-1003', status: 'active', lines: ['What are your opening hours?', 'We answer around the clock; humans are in 9 to 5 CET.'] },
  {
    visitor: 'visitor-1004',
    status: 'handed_off',
    lines: ['I need to talk to a person about my invoice.', 'Handing you over to our billing team.', 'Hi, this is Sam from billing. How can I help?'],
  },
] as const;

/**
 * The first embedded start shows the product: a demo tenant on Pro with bots (one inactive),
 * conversations with messages, leads, a secret key and a public key for the widget, returned so
 * they can be printed once.
 */
@Injectable()
export class DemoDataSeeder {
  constructor(
    private readonly tenantsRepository: TenantsRepository,
    private readonly tenants: TenantsService,
    private readonly apiKeys: ApiKeysService,
    private readonly bots: BotsService,
    private readonly conversations: ConversationsService,
    private readonly knowledge: KnowledgeService,
    private readonly leads: LeadsService,
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  /**
   * Seeds an empty database and returns the demo tenant with its new key. On a database that has
   * data already, returns the demo tenant without a key (its key was shown once, on the first
   * start), or undefined when there is no demo tenant.
   */
  async seedIfEmpty(): Promise<DemoTenant | undefined> {
    if ((await this.tenantsRepository.count()) > 0) {
      const existing = await this.tenantsRepository.findBySlug(DEMO_SLUG);
      return existing ? { tenantId: existing.id } : undefined;
    }
    const tenant = await this.tenants.createTenant({ name: 'Demo Company', slug: DEMO_SLUG, plan: 'pro' }, SYSTEM_ACTOR);
    const support = await this.bots.createBot(tenant.id, { name: 'Support Assistant', primaryColor: '#2563eb', language: 'en' }, SYSTEM_ACTOR);
    const sales = await this.bots.createBot(tenant.id, { name: 'Sales Concierge', primaryColor: '#16a34a', language: 'en' }, SYSTEM_ACTOR);
    await this.bots.createBot(tenant.id, { name: 'Legacy FAQ Bot', primaryColor: '#64748b', language: 'de', isActive: false }, SYSTEM_ACTOR);
    await this.knowledge.addDocument(
      tenant.id,
      support.id,
      { title: 'Pricing', content: 'Pro costs 49 EUR a month; annual billing saves two months.' },
      SYSTEM_ACTOR,
    );
    await this.knowledge.addDocument(
      tenant.id,
      support.id,
      { title: 'Opening hours', content: 'Bots answer around the clock; humans 9 to 5 CET.' },
      SYSTEM_ACTOR,
    );

    const start = Date.now() - CONVERSATIONS.length * 24 * HOUR;
    for (const [index, conversation] of CONVERSATIONS.entries()) {
      const createdAt = new Date(start + index * 24 * HOUR);
      await this.conversations.recordConversation(
        tenant.id,
        index % 2 ? sales.id : support.id,
        {
          status: conversation.status,
          visitorId: conversation.visitor,
          createdAt,
          messages: conversation.lines.map((content, line) => ({
            role: line === 2 && conversation.status === 'handed_off' ? 'agent' : line % 2 ? 'assistant' : 'user',
            content,
            createdAt: new Date(createdAt.getTime() + line * 30_000),
          })),
          lead: 'lead' in conversation ? conversation.lead : undefined,
        },
        SYSTEM_ACTOR,
      );
    }
    await this.leads.captureLead(tenant.id, {
      name: 'Alan Turing',
      email: 'alan@bletchley.example',
      company: 'Bletchley Park',
      tags: ['enterprise', 'imported'],
    });

    const owner = await this.users.create({ email: DEMO_LOGIN.email, name: 'Demo Owner', passwordHash: await this.hasher.hash(DEMO_LOGIN.password) });
    await this.users.addMembership(tenant.id, owner.id, 'owner');

    const { key } = await this.apiKeys.createKey(tenant.id, { name: 'Demo key', scopes: [...ALL_SCOPES], type: 'secret', expiresAt: null }, SYSTEM_ACTOR);
    const widget = await this.apiKeys.createKey(tenant.id, { name: 'Demo widget key', scopes: [], type: 'public', expiresAt: null }, SYSTEM_ACTOR);
    return { tenantId: tenant.id, key, widget: { publicKey: widget.key, botId: support.id } };
  }
}
