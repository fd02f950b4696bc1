// The four endpoints, written the way the NestJS and Prisma documentation would: controllers
// calling PrismaService directly, Prisma's typed API, `count` + `findMany` for a page, the rows
// returned as Prisma gives them (Dates become ISO strings in JSON). The answers have the service's
// shapes (bench/run.mjs checks it before measuring). Creating a lead is one INSERT, as the
// baseline's; the service also queues a lead.created event in the same transaction.
const { Body, Controller, Get, HttpCode, Post, Query } = require('@nestjs/common');
const { PLANS } = require('../../dist/tenancy/plans.js');
const { CurrentTenant, Scopes } = require('./auth.cjs');
const { decorateClass, decorateMethod, param, paramTypes } = require('./decorate.cjs');
const { CreateLeadDto, ListLeadsQuery } = require('./dto.cjs');
const { PrismaService } = require('./prisma.cjs');

const botSelect = { id: true, name: true, isActive: true, avatarUrl: true, primaryColor: true, language: true, messageCount: true, conversationCount: true, knowledgeBaseSize: true, createdAt: true, updatedAt: true };
const leadSelect = { id: true, name: true, email: true, phone: true, company: true, message: true, botId: true, conversationId: true, source: true, status: true, tags: true, createdAt: true, updatedAt: true };
const newestFirst = [{ createdAt: 'desc' }, { id: 'desc' }];

class VerifyController {
  constructor(prisma) {
    this.prisma = prisma;
  }

  async verify(tenant) {
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const usage = await this.prisma.messageUsage.findUnique({ where: { tenantId_month: { tenantId: tenant.id, month } } });
    const plan = PLANS[tenant.plan];
    return {
      valid: true,
      tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
      plan: { name: plan.name, botsLimit: plan.botsLimit, messagesLimit: plan.messagesLimit },
      usage: { messagesThisMonth: usage?.count ?? 0 },
    };
  }
}
decorateClass(VerifyController, Controller('api/v1/verify'), paramTypes(PrismaService));
decorateMethod(VerifyController, 'verify', Get(), param(0, CurrentTenant()), paramTypes(Object));

class BotsController {
  constructor(prisma) {
    this.prisma = prisma;
  }

  async list(tenant) {
    return { bots: await this.prisma.bot.findMany({ where: { tenantId: tenant.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: botSelect }) };
  }
}
decorateClass(BotsController, Controller('api/v1/bots'), paramTypes(PrismaService));
decorateMethod(BotsController, 'list', Get(), Scopes('bots:read'), param(0, CurrentTenant()), paramTypes(Object));

class LeadsController {
  constructor(prisma) {
    this.prisma = prisma;
  }

  async list(tenant, query) {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const where = { tenantId: tenant.id };
    const [leads, total] = await Promise.all([
      this.prisma.lead.findMany({ where, orderBy: newestFirst, skip: offset, take: limit, select: leadSelect }),
      this.prisma.lead.count({ where }),
    ]);
    return { leads, pagination: { total, limit, offset, hasMore: offset + limit < total } };
  }

  async create(tenant, body) {
    const lead = await this.prisma.lead.create({ data: { ...body, tags: body.tags ?? [], tenantId: tenant.id, source: 'api' }, select: leadSelect });
    return { lead };
  }
}
decorateClass(LeadsController, Controller('api/v1/leads'), paramTypes(PrismaService));
decorateMethod(LeadsController, 'list', Get(), Scopes('leads:read'), param(0, CurrentTenant()), param(1, Query()), paramTypes(Object, ListLeadsQuery));
decorateMethod(LeadsController, 'create', Post(), HttpCode(201), Scopes('leads:write'), param(0, CurrentTenant()), param(1, Body()), paramTypes(Object, CreateLeadDto));

module.exports = { BotsController, LeadsController, VerifyController };
