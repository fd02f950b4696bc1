import { randomUUID } from 'node:crypto';
import { Body, Controller, createParamDecorator, Get, INestApplication, Param, Post, Put, Query, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Public } from '../../src/common/access/access.decorators';
import { generateApiKey } from '../../src/tenancy/api-keys/api-key-format';
import { ApiKeysRepository } from '../../src/tenancy/api-keys/api-keys.repository';
import { ALL_SCOPES, Scope } from '../../src/common/access/scopes';
import { expectError } from '../support/assertions';
import { sleep } from '../support/child-server';
import { controllerRoutes, servedExpressRoutes } from '../support/controller-routes';
import { createTestApp, TestApp } from '../support/create-test-app';
import { changeLastCharacter, createBot, createKey, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';
import { firstEvent } from '../support/sse-client';

interface Fixture {
  botId: string;
  conversationId: string;
  leadId: string;
  webhookId: string;
  deliveryId: string;
  documentId: string;
  erasureId: string;
}

interface Endpoint {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: (f: Fixture) => string;
  scope: Scope;
  body?: Record<string, unknown> | ((f: Fixture) => Record<string, unknown>);
  success: number;
  /** A server-sent events stream: its answer is its first event (see firstEvent). */
  stream?: true;
  /** What a successful answer must contain. */
  expected: (f: Fixture) => Record<string, unknown>;
}

const pagination = expect.objectContaining({ total: expect.any(Number), limit: expect.any(Number), offset: 0, hasMore: expect.any(Boolean) });

const ENDPOINTS: Endpoint[] = [
  {
    name: 'GET /api/v1/bots',
    method: 'get',
    path: () => '/api/v1/bots',
    scope: 'bots:read',
    success: 200,
    expected: (f) => ({ bots: [expect.objectContaining({ id: f.botId })] }),
  },
  {
    name: 'GET /api/v1/bots/:id',
    method: 'get',
    path: (f) => `/api/v1/bots/${f.botId}`,
    scope: 'bots:read',
    success: 200,
    expected: (f) => ({ bot: expect.objectContaining({ id: f.botId }) }),
  },
  {
    name: 'GET /api/v1/conversations',
    method: 'get',
    path: () => '/api/v1/conversations',
    scope: 'conversations:read',
    success: 200,
    expected: (f) => ({ conversations: [expect.objectContaining({ id: f.conversationId })], pagination }),
  },
  {
    name: 'GET /api/v1/conversations/:id',
    method: 'get',
    path: (f) => `/api/v1/conversations/${f.conversationId}`,
    scope: 'conversations:read',
    success: 200,
    expected: (f) => ({ conversation: expect.objectContaining({ id: f.conversationId }) }),
  },
  {
    name: 'GET /api/v1/conversations/:id/events',
    method: 'get',
    path: (f) => `/api/v1/conversations/${f.conversationId}/events`,
    scope: 'conversations:read',
    success: 200,
    stream: true,
    expected: (f) => ({ event: 'conversation', data: expect.objectContaining({ id: f.conversationId }) }),
  },
  {
    name: 'GET /api/v1/conversations/:id/messages',
    method: 'get',
    path: (f) => `/api/v1/conversations/${f.conversationId}/messages`,
    scope: 'conversations:read',
    success: 200,
    expected: (f) => ({
      messages: [expect.objectContaining({ conversationId: f.conversationId }), expect.objectContaining({ conversationId: f.conversationId })],
      pagination,
    }),
  },
  {
    name: 'GET /api/v1/leads',
    method: 'get',
    path: () => '/api/v1/leads',
    scope: 'leads:read',
    success: 200,
    expected: (f) => ({ leads: [expect.objectContaining({ id: f.leadId })], pagination }),
  },
  {
    name: 'GET /api/v1/leads/:id',
    method: 'get',
    path: (f) => `/api/v1/leads/${f.leadId}`,
    scope: 'leads:read',
    success: 200,
    expected: (f) => ({ lead: expect.objectContaining({ id: f.leadId }) }),
  },
  {
    name: 'POST /api/v1/leads',
    method: 'post',
    path: () => '/api/v1/leads',
    scope: 'leads:write',
    body: { name: 'Scoped Lead', email: 'scoped@example.com' },
    success: 201,
    expected: () => ({ lead: expect.objectContaining({ name: 'Scoped Lead', source: 'api', status: 'new' }) }),
  },
  // A key with leads:write alone gets no lead data back: 204 (API_DECISIONS, Lead updates).
  {
    name: 'PATCH /api/v1/leads/:id',
    method: 'patch',
    path: (f) => `/api/v1/leads/${f.leadId}`,
    scope: 'leads:write',
    body: { status: 'contacted' },
    success: 204,
    expected: () => ({}),
  },
  {
    name: 'POST /api/v1/leads/import',
    method: 'post',
    path: () => '/api/v1/leads/import',
    scope: 'leads:write',
    body: { leads: [{ name: 'Imported', email: 'imported@example.com' }] },
    success: 201,
    expected: () => ({ imported: 1 }),
  },
  // A CSV body: supertest leaves `body` empty for text/csv.
  { name: 'GET /api/v1/leads/export', method: 'get', path: () => '/api/v1/leads/export', scope: 'leads:read', success: 200, expected: () => ({}) },
  {
    name: 'GET /api/v1/analytics/overview',
    method: 'get',
    path: () => '/api/v1/analytics/overview',
    scope: 'analytics:read',
    success: 200,
    expected: () => ({ conversations: 1, messages: { user: 1, assistant: 1, agent: 0 }, previous: expect.objectContaining({ conversations: 0 }) }),
  },
  {
    name: 'GET /api/v1/analytics/timeseries',
    method: 'get',
    path: () => '/api/v1/analytics/timeseries?metric=conversations',
    scope: 'analytics:read',
    success: 200,
    expected: () => ({ metric: 'conversations', interval: 'day', points: expect.arrayContaining([expect.objectContaining({ count: 1 })]) }),
  },
  {
    name: 'GET /api/v1/settings',
    method: 'get',
    path: () => '/api/v1/settings',
    scope: 'settings:read',
    success: 200,
    expected: () => ({ settings: expect.objectContaining({ timezone: expect.any(String) }) }),
  },
  {
    name: 'PATCH /api/v1/settings',
    method: 'patch',
    path: () => '/api/v1/settings',
    scope: 'settings:write',
    body: { timezone: 'Europe/Berlin' },
    success: 200,
    expected: () => ({ settings: expect.objectContaining({ timezone: 'Europe/Berlin' }) }),
  },
  {
    name: 'GET /api/v1/bots/:id/settings',
    method: 'get',
    path: (f) => `/api/v1/bots/${f.botId}/settings`,
    scope: 'settings:read',
    success: 200,
    expected: () => ({ settings: expect.objectContaining({ showSources: expect.any(Boolean) }) }),
  },
  {
    name: 'PATCH /api/v1/bots/:id/settings',
    method: 'patch',
    path: (f) => `/api/v1/bots/${f.botId}/settings`,
    scope: 'settings:write',
    body: { showSources: false },
    success: 200,
    expected: () => ({ settings: expect.objectContaining({ showSources: false }) }),
  },
  {
    name: 'POST /api/v1/webhooks',
    method: 'post',
    path: () => '/api/v1/webhooks',
    scope: 'webhooks:manage',
    body: { url: 'https://hooks.example.com/in', events: ['*'] },
    success: 201,
    expected: () => ({ webhook: expect.objectContaining({ url: 'https://hooks.example.com/in' }), secret: expect.any(String) }),
  },
  {
    name: 'GET /api/v1/webhooks',
    method: 'get',
    path: () => '/api/v1/webhooks',
    scope: 'webhooks:manage',
    success: 200,
    expected: (f) => ({ webhooks: expect.arrayContaining([expect.objectContaining({ id: f.webhookId })]) }),
  },
  {
    name: 'GET /api/v1/webhooks/:id',
    method: 'get',
    path: (f) => `/api/v1/webhooks/${f.webhookId}`,
    scope: 'webhooks:manage',
    success: 200,
    expected: (f) => ({ webhook: expect.objectContaining({ id: f.webhookId }) }),
  },
  {
    name: 'PATCH /api/v1/webhooks/:id',
    method: 'patch',
    path: (f) => `/api/v1/webhooks/${f.webhookId}`,
    scope: 'webhooks:manage',
    body: { description: 'CRM' },
    success: 200,
    expected: (f) => ({ webhook: expect.objectContaining({ id: f.webhookId, description: 'CRM' }) }),
  },
  {
    name: 'POST /api/v1/webhooks/:id/rotate-secret',
    method: 'post',
    path: (f) => `/api/v1/webhooks/${f.webhookId}/rotate-secret`,
    scope: 'webhooks:manage',
    success: 200,
    expected: (f) => ({ webhook: expect.objectContaining({ id: f.webhookId }), secret: expect.any(String) }),
  },
  {
    name: 'POST /api/v1/webhooks/:id/test',
    method: 'post',
    path: (f) => `/api/v1/webhooks/${f.webhookId}/test`,
    scope: 'webhooks:manage',
    success: 202,
    expected: () => ({ delivery: expect.objectContaining({ eventType: 'webhook.test', status: 'pending' }) }),
  },
  {
    name: 'GET /api/v1/webhooks/:id/deliveries',
    method: 'get',
    path: (f) => `/api/v1/webhooks/${f.webhookId}/deliveries`,
    scope: 'webhooks:manage',
    success: 200,
    expected: (f) => ({ deliveries: expect.arrayContaining([expect.objectContaining({ id: f.deliveryId })]), pagination }),
  },
  {
    name: 'POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    method: 'post',
    path: (f) => `/api/v1/webhooks/${f.webhookId}/deliveries/${f.deliveryId}/retry`,
    scope: 'webhooks:manage',
    success: 202,
    expected: (f) => ({ delivery: expect.objectContaining({ id: f.deliveryId, status: 'pending' }) }),
  },
  {
    name: 'GET /api/v1/bots/:id/documents',
    method: 'get',
    path: (f) => `/api/v1/bots/${f.botId}/documents`,
    scope: 'bots:read',
    success: 200,
    expected: (f) => ({ documents: [expect.objectContaining({ id: f.documentId })], pagination }),
  },
  {
    name: 'GET /api/v1/bots/:id/documents/:docId',
    method: 'get',
    path: (f) => `/api/v1/bots/${f.botId}/documents/${f.documentId}`,
    scope: 'bots:read',
    success: 200,
    expected: (f) => ({ document: expect.objectContaining({ id: f.documentId, content: 'Fixture text.' }) }),
  },
  {
    name: 'POST /api/v1/bots/:id/documents',
    method: 'post',
    path: (f) => `/api/v1/bots/${f.botId}/documents`,
    scope: 'knowledge:write',
    body: { title: 'Scoped', content: 'Scoped text.' },
    success: 201,
    expected: () => ({ document: expect.objectContaining({ title: 'Scoped', characters: 12 }) }),
  },
  {
    name: 'PATCH /api/v1/bots/:id/documents/:docId',
    method: 'patch',
    path: (f) => `/api/v1/bots/${f.botId}/documents/${f.documentId}`,
    scope: 'knowledge:write',
    body: { title: 'Renamed' },
    success: 200,
    expected: (f) => ({ document: expect.objectContaining({ id: f.documentId, title: 'Renamed' }) }),
  },
  // The API channel: the fixture's conversation is one of its (the handoff below then ends it).
  {
    name: 'POST /api/v1/conversations',
    method: 'post',
    path: () => '/api/v1/conversations',
    scope: 'conversations:write',
    body: (f) => ({ botId: f.botId, externalId: 'scoped-user' }),
    success: 201,
    expected: () => ({
      conversation: expect.objectContaining({ channel: 'api', visitor: expect.objectContaining({ externalId: 'scoped-user', verified: true }) }),
    }),
  },
  {
    name: 'POST /api/v1/conversations/:id/visitor-messages',
    method: 'post',
    path: (f) => `/api/v1/conversations/${f.conversationId}/visitor-messages`,
    scope: 'conversations:write',
    body: { content: 'Hello from a bridge.' },
    success: 201,
    expected: (f) => ({ message: expect.objectContaining({ conversationId: f.conversationId, role: 'user' }), reply: expect.any(Object) }),
  },
  // Human handoff, in its order: the conversation ends up ended.
  {
    name: 'POST /api/v1/conversations/:id/handoff',
    method: 'post',
    path: (f) => `/api/v1/conversations/${f.conversationId}/handoff`,
    scope: 'conversations:write',
    success: 200,
    expected: (f) => ({ conversation: expect.objectContaining({ id: f.conversationId, status: 'handed_off' }) }),
  },
  {
    name: 'POST /api/v1/conversations/:id/messages',
    method: 'post',
    path: (f) => `/api/v1/conversations/${f.conversationId}/messages`,
    scope: 'conversations:write',
    body: { content: 'A person here.' },
    success: 201,
    expected: (f) => ({ message: expect.objectContaining({ conversationId: f.conversationId, role: 'agent' }) }),
  },
  {
    name: 'POST /api/v1/conversations/:id/release',
    method: 'post',
    path: (f) => `/api/v1/conversations/${f.conversationId}/release`,
    scope: 'conversations:write',
    success: 200,
    expected: (f) => ({ conversation: expect.objectContaining({ id: f.conversationId, status: 'active' }) }),
  },
  {
    name: 'POST /api/v1/conversations/:id/end',
    method: 'post',
    path: (f) => `/api/v1/conversations/${f.conversationId}/end`,
    scope: 'conversations:write',
    success: 200,
    expected: (f) => ({ conversation: expect.objectContaining({ id: f.conversationId, status: 'ended' }) }),
  },
  // Removes the fixture's document.
  {
    name: 'DELETE /api/v1/bots/:id/documents/:docId',
    method: 'delete',
    path: (f) => `/api/v1/bots/${f.botId}/documents/${f.documentId}`,
    scope: 'knowledge:write',
    success: 204,
    expected: () => ({}),
  },
  {
    name: 'POST /api/v1/privacy/exports',
    method: 'post',
    path: () => '/api/v1/privacy/exports',
    scope: 'privacy:manage',
    body: { email: 'chat@example.com' },
    success: 200,
    expected: (f) => ({ leads: [expect.objectContaining({ id: f.leadId })], conversations: [expect.objectContaining({ id: f.conversationId })] }),
  },
  {
    name: 'GET /api/v1/privacy/erasures/:id',
    method: 'get',
    path: (f) => `/api/v1/privacy/erasures/${f.erasureId}`,
    scope: 'privacy:manage',
    success: 200,
    expected: (f) => ({ erasure: expect.objectContaining({ id: f.erasureId, status: 'completed' }) }),
  },
  // These remove the fixture's conversation (its lead stays), then its lead.
  {
    name: 'DELETE /api/v1/conversations/:id',
    method: 'delete',
    path: (f) => `/api/v1/conversations/${f.conversationId}`,
    scope: 'conversations:write',
    success: 204,
    expected: () => ({}),
  },
  { name: 'DELETE /api/v1/leads/:id', method: 'delete', path: (f) => `/api/v1/leads/${f.leadId}`, scope: 'leads:write', success: 204, expected: () => ({}) },
  // Queues an erasure of nobody the fixture holds.
  {
    name: 'POST /api/v1/privacy/erasures',
    method: 'post',
    path: () => '/api/v1/privacy/erasures',
    scope: 'privacy:manage',
    body: { email: 'nobody@example.com' },
    success: 202,
    expected: () => ({ erasure: expect.objectContaining({ status: 'pending', counts: { leads: 0, conversations: 0, messages: 0 } }) }),
  },
  // Last: it removes the fixture's endpoint.
  {
    name: 'DELETE /api/v1/webhooks/:id',
    method: 'delete',
    path: (f) => `/api/v1/webhooks/${f.webhookId}`,
    scope: 'webhooks:manage',
    success: 204,
    expected: () => ({}),
  },
];

const API_ROUTE_SCOPES: [string, Scope[]][] = [
  ['GET /api/v1/verify', []],
  ['GET /api/v1/bots', ['bots:read']],
  ['GET /api/v1/bots/:id', ['bots:read']],
  ['GET /api/v1/conversations', ['conversations:read']],
  ['GET /api/v1/conversations/:id', ['conversations:read']],
  ['GET /api/v1/conversations/:id/events', ['conversations:read']],
  ['GET /api/v1/conversations/:id/messages', ['conversations:read']],
  ['POST /api/v1/conversations/:id/handoff', ['conversations:write']],
  ['POST /api/v1/conversations/:id/messages', ['conversations:write']],
  ['POST /api/v1/conversations/:id/release', ['conversations:write']],
  ['POST /api/v1/conversations/:id/end', ['conversations:write']],
  ['DELETE /api/v1/conversations/:id', ['conversations:write']],
  ['POST /api/v1/conversations', ['conversations:write']],
  ['POST /api/v1/conversations/:id/visitor-messages', ['conversations:write']],
  ['GET /api/v1/leads', ['leads:read']],
  ['GET /api/v1/leads/:id', ['leads:read']],
  ['POST /api/v1/leads', ['leads:write']],
  ['PATCH /api/v1/leads/:id', ['leads:write']],
  ['DELETE /api/v1/leads/:id', ['leads:write']],
  ['POST /api/v1/leads/import', ['leads:write']],
  ['GET /api/v1/leads/export', ['leads:read']],
  ['GET /api/v1/analytics/overview', ['analytics:read']],
  ['GET /api/v1/analytics/timeseries', ['analytics:read']],
  ['GET /api/v1/settings', ['settings:read']],
  ['PATCH /api/v1/settings', ['settings:write']],
  ['GET /api/v1/bots/:id/settings', ['settings:read']],
  ['PATCH /api/v1/bots/:id/settings', ['settings:write']],
  ['POST /api/v1/webhooks', ['webhooks:manage']],
  ['GET /api/v1/webhooks', ['webhooks:manage']],
  ['GET /api/v1/webhooks/:id', ['webhooks:manage']],
  ['PATCH /api/v1/webhooks/:id', ['webhooks:manage']],
  ['DELETE /api/v1/webhooks/:id', ['webhooks:manage']],
  ['POST /api/v1/webhooks/:id/rotate-secret', ['webhooks:manage']],
  ['POST /api/v1/webhooks/:id/test', ['webhooks:manage']],
  ['GET /api/v1/webhooks/:id/deliveries', ['webhooks:manage']],
  ['POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry', ['webhooks:manage']],
  ['GET /api/v1/bots/:id/documents', ['bots:read']],
  ['GET /api/v1/bots/:id/documents/:docId', ['bots:read']],
  ['POST /api/v1/bots/:id/documents', ['knowledge:write']],
  ['PATCH /api/v1/bots/:id/documents/:docId', ['knowledge:write']],
  ['DELETE /api/v1/bots/:id/documents/:docId', ['knowledge:write']],
  ['POST /api/v1/privacy/exports', ['privacy:manage']],
  ['POST /api/v1/privacy/erasures', ['privacy:manage']],
  ['GET /api/v1/privacy/erasures/:id', ['privacy:manage']],
];

/** The admin API: every route takes the admin token. */
const ADMIN_ROUTES = [
  'POST /admin/v1/tenants',
  'GET /admin/v1/tenants/:tenantId',
  'PATCH /admin/v1/tenants/:tenantId',
  'POST /admin/v1/tenants/:tenantId/api-keys',
  'GET /admin/v1/tenants/:tenantId/api-keys',
  'DELETE /admin/v1/tenants/:tenantId/api-keys/:keyId',
  'POST /admin/v1/tenants/:tenantId/bots',
  'PATCH /admin/v1/tenants/:tenantId/bots/:botId',
  'POST /admin/v1/tenants/:tenantId/bots/:botId/documents',
  'POST /admin/v1/tenants/:tenantId/bots/:botId/conversations',
  'GET /admin/v1/tenants/:tenantId/audit-log',
  'POST /admin/v1/users/:userId/password-resets',
];

/** The dashboard's users-only /api/v1 routes, with the role they need (API_DECISIONS part 3); keys get 403. */
const USER_ROUTES: [string, 'member' | 'manager', Scope[]?][] = [
  ['GET /api/v1/tenant', 'member'],
  ['PATCH /api/v1/tenant', 'manager'],
  ['GET /api/v1/members', 'member'],
  ['PATCH /api/v1/members/:userId', 'manager'],
  ['DELETE /api/v1/members/:userId', 'member'],
  ['POST /api/v1/invitations', 'manager'],
  ['GET /api/v1/invitations', 'manager'],
  ['DELETE /api/v1/invitations/:id', 'manager'],
  ['GET /api/v1/api-keys', 'manager'],
  ['POST /api/v1/api-keys', 'manager'],
  ['DELETE /api/v1/api-keys/:id', 'manager'],
  ['GET /api/v1/api-keys/:id/activity', 'manager'],
  ['POST /api/v1/bots', 'manager'],
  ['PATCH /api/v1/bots/:id', 'manager'],
  ['GET /api/v1/audit-log', 'manager'],
  ['POST /api/v1/identity-secret', 'manager'],
  ['DELETE /api/v1/identity-secret', 'manager'],
  ['PUT /api/v1/conversations/:id/assignee', 'member', ['conversations:write']],
];

/** /auth/v1: the signed-in user's own account (session), and the steps before a session exists (signIn). */
const AUTH_ROUTES: [string, 'session' | 'signIn'][] = [
  ['POST /auth/v1/signup', 'signIn'],
  ['POST /auth/v1/sessions', 'signIn'],
  ['POST /auth/v1/invitations/accept', 'signIn'],
  ['POST /auth/v1/password-resets', 'signIn'],
  ['POST /auth/v1/password-resets/confirm', 'signIn'],
  ['GET /auth/v1/sessions', 'session'],
  ['GET /auth/v1/me', 'session'],
  ['PATCH /auth/v1/me', 'session'],
  ['DELETE /auth/v1/sessions/current', 'session'],
  ['DELETE /auth/v1/sessions/:id', 'session'],
];

/** Open to anyone: the health probes and the API description. */
const PUBLIC_ROUTES = [
  'GET /health/live',
  'GET /health/ready',
  'GET /api/v1/openapi.json',
  'GET /docs',
  'GET /docs/assets/:file',
  'GET /widget.js',
  'GET /widget/demo',
  'GET /dashboard',
  'GET /dashboard/*path',
];

/** Every route the app serves; a new endpoint fails the walk below until it is added here with its rule. */
/** The widget's routes: public keys only, a visitor's token on all but the first two (test/e2e/widget.e2e-spec.ts tests them). */
const WIDGET_ROUTES = ['GET /api/v1/widget/bots/:botId', 'POST /api/v1/widget/sessions'];
const VISITOR_ROUTES = [
  'POST /api/v1/widget/conversations',
  'GET /api/v1/widget/conversations',
  'GET /api/v1/widget/conversations/:id/messages',
  'POST /api/v1/widget/conversations/:id/messages',
  'POST /api/v1/widget/conversations/:id/lead',
  'POST /api/v1/widget/conversations/:id/end',
  'POST /api/v1/widget/conversations/:id/handoff',
  'GET /api/v1/widget/conversations/:id/events',
];
const ALL_ROUTES = [
  ...API_ROUTE_SCOPES.map(([route]) => route),
  ...ADMIN_ROUTES,
  ...PUBLIC_ROUTES,
  ...WIDGET_ROUTES,
  ...VISITOR_ROUTES,
  ...USER_ROUTES.map(([route]) => route),
  ...AUTH_ROUTES.map(([route]) => route),
];

const NON_VERIFY = ENDPOINTS.map((endpoint) => [endpoint.name, endpoint] as const);

function send(t: TestApp, endpoint: Endpoint, f: Fixture, key: string) {
  const test = t.http()[endpoint.method](endpoint.path(f)).set('X-API-Key', key);
  if (endpoint.stream) return test.buffer(true).parse(firstEvent);
  const body = typeof endpoint.body === 'function' ? endpoint.body(f) : endpoint.body;
  return body ? test.send(body) : test;
}

/** A Pro tenant with one bot, one conversation with two messages and a lead from it. */
async function tenantWithData(t: TestApp): Promise<TestTenant & Fixture> {
  const tenant = await createTenant(t, { plan: 'pro' });
  const bot = await createBot(t, tenant.id);
  const conversation = await recordConversation(t, tenant.id, bot.id, { channel: 'api', lead: { name: 'Chat Lead', email: 'chat@example.com' } });
  const webhook = await t.prisma.webhookEndpoint.create({
    data: { tenantId: tenant.id, url: 'https://hooks.example.com/fixture', events: ['*'], secret: 'whsec_Zml4dHVyZQ==' },
    select: { id: true },
  });
  const event = await t.prisma.webhookEvent.create({ data: { tenantId: tenant.id, type: 'webhook.test', data: { object: {} } }, select: { id: true } });
  const delivery = await t.prisma.webhookDelivery.create({
    data: { tenantId: tenant.id, endpointId: webhook.id, eventId: event.id, eventType: 'webhook.test', status: 'failed' },
    select: { id: true },
  });
  const document = await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}/documents`).send({ title: 'Fixture', content: 'Fixture text.' });
  const erasure = await t.prisma.privacyErasure.create({
    data: { tenantId: tenant.id, status: 'completed', leadCount: 0, conversationCount: 0, messageCount: 0, completedAt: new Date() },
    select: { id: true },
  });
  return {
    ...tenant,
    botId: bot.id,
    conversationId: conversation.id,
    leadId: conversation.leadId!,
    webhookId: webhook.id,
    deliveryId: delivery.id,
    documentId: document.body.document.id,
    erasureId: erasure.id,
  };
}

/** Boots a bare app with one controller, runs the checks on it, and closes it. */
async function withProbeApp(controller: Type, check: (probe: INestApplication) => void): Promise<void> {
  const moduleRef = await Test.createTestingModule({ controllers: [controller] }).compile();
  const probe = moduleRef.createNestApplication({ logger: false });
  await probe.init();
  try {
    check(probe);
  } finally {
    await probe.close();
  }
}

describe('Authentication, plans and scopes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('GET /api/v1/verify', () => {
    it.each([
      ['pro', 5, 10000],
      ['business', 25, 50000],
      ['enterprise', 100, 250000],
    ] as const)('answers the tenant and the %s plan for a valid key', async (plan, botsLimit, messagesLimit) => {
      const tenant = await createTenant(t, { plan });
      const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: {
          valid: true,
          tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
          plan: { name: plan, botsLimit, messagesLimit },
          usage: { messagesThisMonth: 0 },
        },
      });
    });

    it('accepts the header name in lower case', async () => {
      const tenant = await createTenant(t);
      const response = await t.http().get('/api/v1/verify').set('x-api-key', tenant.key);
      expect(response.status).toBe(200);
      expect(response.body.tenant.id).toBe(tenant.id);
    });

    it('rejects a missing key with 401 INVALID_API_KEY', async () => {
      expectError(await t.http().get('/api/v1/verify'), 401, 'INVALID_API_KEY');
    });

    it('rejects an empty X-API-Key header', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', ''), 401, 'INVALID_API_KEY');
    });

    it('rejects a random string', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', 'not-a-key-at-all'), 401, 'INVALID_API_KEY');
    });

    it('rejects a well-formed key whose checksum does not match', async () => {
      const tenant = await createTenant(t);
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key)).status).toBe(200);
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', changeLastCharacter(tenant.key)), 401, 'INVALID_API_KEY');
    });

    it('rejects a well-formed key with a correct checksum that was never issued', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', generateApiKey('secret')), 401, 'INVALID_API_KEY');
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', generateApiKey('public')), 401, 'INVALID_API_KEY');
    });

    it('never accepts a key in the query string', async () => {
      const tenant = await createTenant(t);
      expectError(await t.http().get(`/api/v1/verify?api_key=${tenant.key}`), 401, 'INVALID_API_KEY');
      expectError(await t.http().get(`/api/v1/bots?api_key=${tenant.key}`), 401, 'INVALID_API_KEY');
    });

    it('rejects a key in the Authorization header', async () => {
      const tenant = await createTenant(t);
      expectError(await t.http().get('/api/v1/verify').set('Authorization', `Bearer ${tenant.key}`), 401, 'INVALID_API_KEY');
    });
  });

  describe('key lifecycle', () => {
    it('looks a key up once for the requests that arrive together before it is cached, and answers each of them', async () => {
      const tenant = await createTenant(t);
      const key = await createKey(t, tenant.id);
      const repository = t.app.get(ApiKeysRepository);
      const findByDigest = repository.findByDigest.bind(repository);
      // A slow database: every request arrives while the first lookup is still running.
      const lookups = jest.spyOn(repository, 'findByDigest').mockImplementation(async (digest) => {
        await sleep(500);
        return findByDigest(digest);
      });
      try {
        const responses = await Promise.all(Array.from({ length: 30 }, () => t.http().get('/api/v1/verify').set('X-API-Key', key.key)));
        expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
        expect(responses.every((response) => response.body.tenant.id === tenant.id)).toBe(true);
        expect(lookups).toHaveBeenCalledTimes(1);
      } finally {
        lookups.mockRestore();
      }
    });

    it('rejects a key as soon as its expiry date has passed, though it was just used (and cached)', async () => {
      const tenant = await createTenant(t);
      const expiresAt = Date.now() + 1_500;
      const key = await createKey(t, tenant.id, { expiresAt: new Date(expiresAt).toISOString() });
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', key.key)).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 10));

      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', key.key), 401, 'INVALID_API_KEY');
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', key.key), 401, 'INVALID_API_KEY');
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key)).status).toBe(200);
    });

    it('rejects a key whose expiry was moved into the past in the database within one second', async () => {
      const tenant = await createTenant(t);
      const key = await createKey(t, tenant.id, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', key.key)).status).toBe(200);

      await t.prisma.apiKey.update({ where: { id: key.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
      await new Promise((resolve) => setTimeout(resolve, 1_050));

      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', key.key), 401, 'INVALID_API_KEY');
    });

    it('rejects a deleted key on the very next request', async () => {
      const tenant = await createTenant(t);
      const key = await createKey(t, tenant.id);
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', key.key)).status).toBe(200);

      expect((await t.admin().delete(`/admin/v1/tenants/${tenant.id}/api-keys/${key.id}`)).status).toBe(204);

      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', key.key), 401, 'INVALID_API_KEY');
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', key.key), 401, 'INVALID_API_KEY');
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key)).status).toBe(200);
    });
  });

  describe('public keys', () => {
    let tenant: TestTenant & Fixture;
    let publicKey: string;

    beforeAll(async () => {
      tenant = await tenantWithData(t);
      publicKey = (await createKey(t, tenant.id, { type: 'public' })).key;
    });

    it('is a svc_pk_ key that may verify itself (without usage)', async () => {
      expect(publicKey).toMatch(/^svc_pk_/);
      const response = await t.http().get('/api/v1/verify').set('X-API-Key', publicKey);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: { valid: true, tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug }, plan: { name: 'pro', botsLimit: 5, messagesLimit: 10000 } },
      });
    });

    it.each(NON_VERIFY)('gets 403 INSUFFICIENT_SCOPE on %s even with every scope', async (_name, endpoint) => {
      expectError(await send(t, endpoint, tenant, publicKey), 403, 'INSUFFICIENT_SCOPE');
    });

    it('changed nothing through the refused writes', async () => {
      const leads = await t.http().get('/api/v1/leads').set('X-API-Key', tenant.key);
      expect(leads.status).toBe(200);
      expect(leads.body.leads).toEqual([expect.objectContaining({ id: tenant.leadId, status: 'new', source: 'widget' })]);
    });
  });

  describe('plans', () => {
    let free: TestTenant & Fixture;
    let narrowKey: string;

    beforeAll(async () => {
      // Keys can only be created on Pro or higher: the tenant gets its keys first, then moves to Free.
      free = await tenantWithData(t);
      narrowKey = (await createKey(t, free.id, { scopes: ['settings:read'] })).key;
      expect((await t.admin().patch(`/admin/v1/tenants/${free.id}`).send({ plan: 'free' })).status).toBe(200);
    });

    it('refuses /verify to a valid key of a Free tenant with 403 PLAN_UPGRADE_REQUIRED', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', free.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it('refuses a Free tenant created through the factory', async () => {
      const tenant = await createTenant(t, { plan: 'free' });
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key), 403, 'PLAN_UPGRADE_REQUIRED');
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', tenant.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it.each(NON_VERIFY)('refuses %s to a Free tenant with 403 PLAN_UPGRADE_REQUIRED', async (_name, endpoint) => {
      expectError(await send(t, endpoint, free, free.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it('checks the plan before the scope', async () => {
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', narrowKey), 403, 'PLAN_UPGRADE_REQUIRED');
      expectError(
        await t.http().post('/api/v1/leads').set('X-API-Key', narrowKey).send({ name: 'Ann', email: 'ann@example.com' }),
        403,
        'PLAN_UPGRADE_REQUIRED',
      );
    });

    it('changed nothing through the refused writes', async () => {
      const rows = await t.prisma.lead.findMany({ where: { tenantId: free.id }, select: { id: true, status: true } });
      expect(rows).toEqual([{ id: free.leadId, status: 'new' }]);
    });

    it('applies a plan change on the next request', async () => {
      const tenant = await createTenant(t, { plan: 'pro' });
      const verify = () => t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
      const bots = () => t.http().get('/api/v1/bots').set('X-API-Key', tenant.key);
      expect((await verify()).status).toBe(200);

      expect((await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'free' })).status).toBe(200);
      expectError(await verify(), 403, 'PLAN_UPGRADE_REQUIRED');
      expectError(await bots(), 403, 'PLAN_UPGRADE_REQUIRED');

      expect((await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'business' })).status).toBe(200);
      const upgraded = await verify();
      expect({ status: upgraded.status, plan: upgraded.body.plan }).toEqual({ status: 200, plan: { name: 'business', botsLimit: 25, messagesLimit: 50000 } });
      expect((await bots()).status).toBe(200);
    });
  });

  describe('scopes', () => {
    let tenant: TestTenant & Fixture;
    const only = new Map<Scope, string>();
    const allBut = new Map<Scope, string>();

    beforeAll(async () => {
      tenant = await tenantWithData(t);
      for (const scope of ALL_SCOPES) {
        only.set(scope, (await createKey(t, tenant.id, { scopes: [scope] })).key);
        allBut.set(scope, (await createKey(t, tenant.id, { scopes: ALL_SCOPES.filter((s) => s !== scope) })).key);
      }
    });

    it.each(NON_VERIFY)('%s: a key with every scope but the one needed gets 403 INSUFFICIENT_SCOPE', async (_name, endpoint) => {
      expectError(await send(t, endpoint, tenant, allBut.get(endpoint.scope)!), 403, 'INSUFFICIENT_SCOPE');
    });

    it('changed nothing through the refused writes', async () => {
      const rows = await t.prisma.lead.findMany({ where: { tenantId: tenant.id }, select: { id: true, status: true } });
      expect(rows).toEqual([{ id: tenant.leadId, status: 'new' }]);
      const documents = await t.prisma.knowledgeDocument.findMany({ where: { tenantId: tenant.id }, select: { id: true, title: true } });
      expect(documents).toEqual([{ id: tenant.documentId, title: 'Fixture' }]);
    });

    it.each(NON_VERIFY)('%s: a key with only the needed scope succeeds', async (_name, endpoint) => {
      const response = await send(t, endpoint, tenant, only.get(endpoint.scope)!);
      expect({ status: response.status, body: response.body }).toEqual({ status: endpoint.success, body: expect.objectContaining(endpoint.expected(tenant)) });
    });

    it('lets a key with one scope call /verify and the routes of that scope, nothing else', async () => {
      const key = (await createKey(t, tenant.id, { scopes: ['settings:read'] })).key;
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', key)).status).toBe(200);
      for (const endpoint of ENDPOINTS.filter((e) => e.scope !== 'settings:read')) expectError(await send(t, endpoint, tenant, key), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('order of checks on POST /api/v1/leads', () => {
    const BAD_BODIES = [
      ['malformed JSON', 400, 'VALIDATION_ERROR', 'application/json', '{"name": "Ann", "email": '],
      ['a text/plain body', 415, 'UNSUPPORTED_MEDIA_TYPE', 'text/plain', 'name=Ann&email=ann@example.com'],
      ['a form body', 415, 'UNSUPPORTED_MEDIA_TYPE', 'application/x-www-form-urlencoded', 'name=Ann&email=ann@example.com'],
      [
        'a 70 KiB body',
        413,
        'PAYLOAD_TOO_LARGE',
        'application/json',
        JSON.stringify({ name: 'Ann', email: 'ann@example.com', message: 'x'.repeat(70 * 1024) }),
      ],
    ] as const;

    let tenant: TestTenant;
    let noWrite: string;
    let publicKey: string;
    let free: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(t);
      noWrite = (await createKey(t, tenant.id, { scopes: ALL_SCOPES.filter((s) => s !== 'leads:write') })).key;
      publicKey = (await createKey(t, tenant.id, { type: 'public' })).key;
      free = await createTenant(t, { plan: 'free' });
    });

    const post = (contentType: string, body: string) => t.http().post('/api/v1/leads').set('Content-Type', contentType).send(body);

    it.each(BAD_BODIES)('a missing key with %s is 401', async (_what, _status, _code, type, body) => {
      expectError(await post(type, body), 401, 'INVALID_API_KEY');
    });

    it.each(BAD_BODIES)('an unknown key with %s is 401', async (_what, _status, _code, type, body) => {
      expectError(await post(type, body).set('X-API-Key', generateApiKey('secret')), 401, 'INVALID_API_KEY');
    });

    it.each(BAD_BODIES)('a Free tenant with %s is 403 PLAN_UPGRADE_REQUIRED', async (_what, _status, _code, type, body) => {
      expectError(await post(type, body).set('X-API-Key', free.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it.each(BAD_BODIES)('a key without leads:write with %s is 403 INSUFFICIENT_SCOPE', async (_what, _status, _code, type, body) => {
      expectError(await post(type, body).set('X-API-Key', noWrite), 403, 'INSUFFICIENT_SCOPE');
    });

    it.each(BAD_BODIES)('a public key with %s is 403 INSUFFICIENT_SCOPE', async (_what, _status, _code, type, body) => {
      expectError(await post(type, body).set('X-API-Key', publicKey), 403, 'INSUFFICIENT_SCOPE');
    });

    it.each(BAD_BODIES)('a valid key with %s gets %i %s', async (_what, status, code, type, body) => {
      const response = await post(type, body).set('X-API-Key', tenant.key);
      const details = code === 'VALIDATION_ERROR' ? { details: [{ field: expect.any(String), message: expect.any(String) }] } : {};
      expect({ status: response.status, body: response.body }).toEqual({
        status,
        body: { error: { code, message: expect.any(String), status, requestId: response.headers['x-request-id'], ...details } },
      });
    });

    it('a valid key with a valid body creates the lead', async () => {
      const lead = await createLead(t, tenant.key, { name: 'Order Lead' });
      expect(lead).toMatchObject({ name: 'Order Lead', source: 'api', status: 'new' });
    });

    it('created no lead through any refused request', async () => {
      expect(await t.prisma.lead.count({ where: { tenantId: { in: [tenant.id, free.id] } } })).toBe(1);
    });
  });

  describe('every route declares an access rule (deny by default)', () => {
    it('finds every controller route of the app, all with a rule', () => {
      const routes = controllerRoutes(t.app);
      expect(routes.map((route) => route.route).sort()).toEqual([...ALL_ROUTES].sort());
      expect(routes.filter((route) => !route.rule).map((route) => route.route)).toEqual([]);
    });

    it('gives each API route its API-key rule with the scopes of SPEC 5.3, admin routes the admin rule, and public routes the public rule', () => {
      const rules = new Map(controllerRoutes(t.app).map(({ route, rule }) => [route, rule]));
      expect(Object.fromEntries(API_ROUTE_SCOPES.map(([route]) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(API_ROUTE_SCOPES.map(([route, scopes]) => [route, { kind: 'apiKey', scopes }])),
      );
      const admin = [...rules].filter(([route]) => route.includes(' /admin/'));
      expect(admin.map(([route]) => route).sort()).toEqual([...ADMIN_ROUTES].sort());
      expect(admin.filter(([, rule]) => rule?.kind !== 'admin')).toEqual([]);
      expect(Object.fromEntries(PUBLIC_ROUTES.map((route) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(PUBLIC_ROUTES.map((route) => [route, { kind: 'public' }])),
      );
      expect(Object.fromEntries(WIDGET_ROUTES.map((route) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(WIDGET_ROUTES.map((route) => [route, { kind: 'widget' }])),
      );
      expect(Object.fromEntries(VISITOR_ROUTES.map((route) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(VISITOR_ROUTES.map((route) => [route, { kind: 'visitor' }])),
      );
      expect(Object.fromEntries(USER_ROUTES.map(([route]) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(USER_ROUTES.map(([route, role, scopes]) => [route, { kind: 'tenantUser', role, ...(scopes ? { scopes } : {}) }])),
      );
      expect(Object.fromEntries(AUTH_ROUTES.map(([route]) => [route, rules.get(route)]))).toEqual(
        Object.fromEntries(AUTH_ROUTES.map(([route, kind]) => [route, { kind }])),
      );
    });

    it.each(USER_ROUTES.map(([route]) => route))('%s: a valid key with every scope gets 403 INSUFFICIENT_SCOPE (users only)', async (route) => {
      const tenant = await createTenant(t, { plan: 'enterprise' });
      const [method, path] = route.split(' ');
      const request = t
        .http()
        [method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path.replace(/:\w+/g, randomUUID()))
        .set('X-API-Key', tenant.key);
      expectError(await (method === 'GET' || method === 'DELETE' ? request : request.send({})), 403, 'INSUFFICIENT_SCOPE');
    });

    it('tests the scopes of exactly the API routes that need one', () => {
      const byRoute = ([a]: [string, Scope[]], [b]: [string, Scope[]]) => a.localeCompare(b);
      const tested = ENDPOINTS.map((endpoint): [string, Scope[]] => [endpoint.name, [endpoint.scope]]);
      expect(tested.sort(byRoute)).toEqual(API_ROUTE_SCOPES.filter(([, scopes]) => scopes.length > 0).sort(byRoute));
    });

    it('serves exactly the controller handlers over HTTP, and nothing else', () => {
      const fromControllers = controllerRoutes(t.app).map((route) => route.route);
      const registered = servedExpressRoutes(t.app);
      expect([...registered].sort()).toEqual([...fromControllers].sort());
    });

    it('reports a route without a rule (the walk itself can fail)', async () => {
      @Controller('probe')
      class ProbeController {
        @Get('open') @Public() open() {
          return 'open';
        }
        @Get('forgotten') forgotten() {
          return 'forgotten';
        }
      }
      await withProbeApp(ProbeController, (probe) => {
        const routes = controllerRoutes(probe);
        expect(routes.map(({ route, rule }) => ({ route, rule }))).toEqual([
          { route: 'GET /probe/open', rule: { kind: 'public' } },
          { route: 'GET /probe/forgotten', rule: undefined },
        ]);
        expect(servedExpressRoutes(probe).sort()).toEqual(['GET /probe/forgotten', 'GET /probe/open']);
      });
    });

    it('tells the handlers that read the body or the query string (the fuzz suite checks its coverage with it)', async () => {
      const Custom = createParamDecorator(() => 'custom');
      @Controller('probe')
      class ProbeController {
        @Post('body') @Public() body(@Body() _body: unknown) {
          return 'body';
        }
        @Get('query/:id') @Public() query(@Param('id') _id: string, @Query() _query: unknown) {
          return 'query';
        }
        @Put('both') @Public() both(@Query('a') _a: string, @Body('b') _b: unknown) {
          return 'both';
        }
        @Post('neither/:id') @Public() neither(@Param('id') _id: string, @Custom() _custom: string) {
          return 'neither';
        }
      }
      await withProbeApp(ProbeController, (probe) => {
        expect(controllerRoutes(probe).map(({ route, body, query }) => ({ route, body, query }))).toEqual([
          { route: 'POST /probe/body', body: true, query: false },
          { route: 'GET /probe/query/:id', body: false, query: true },
          { route: 'PUT /probe/both', body: true, query: true },
          { route: 'POST /probe/neither/:id', body: false, query: false },
        ]);
      });
    });
  });
});
