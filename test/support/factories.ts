import { randomUUID } from 'node:crypto';
import { ALL_SCOPES, Scope } from '../../src/common/access/scopes';
import type { Plan } from '../../src/tenancy/plans';
import type { TestApp } from './create-test-app';

export interface TestTenant {
  id: string;
  name: string;
  slug: string;
  /** A secret key with the requested scopes (all scopes by default). */
  key: string;
  keyId: string;
}

function expectStatus(response: { status: number; body: unknown }, status: number, what: string): void {
  if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
}

/**
 * A tenant with one key, made through the admin API. A Free tenant is created on Pro, given its
 * key, then downgraded, since keys can only be created on Pro or higher.
 */
export async function createTenant(
  t: TestApp,
  options: { plan?: Plan; scopes?: Scope[]; keyType?: 'secret' | 'public'; expiresAt?: string } = {},
): Promise<TestTenant> {
  const plan = options.plan ?? 'pro';
  const slug = `t-${randomUUID().slice(0, 13)}`;
  const created = await t
    .admin()
    .post('/admin/v1/tenants')
    .send({ name: `Tenant ${slug}`, slug, plan: plan === 'free' ? 'pro' : plan });
  expectStatus(created, 201, 'create tenant');
  const tenant = created.body.tenant;
  const key = await createKey(t, tenant.id, { scopes: options.scopes, type: options.keyType, expiresAt: options.expiresAt });
  if (plan === 'free') expectStatus(await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'free' }), 200, 'downgrade tenant');
  return { id: tenant.id, name: tenant.name, slug, key: key.key, keyId: key.id };
}

export async function createKey(
  t: TestApp,
  tenantId: string,
  options: { scopes?: Scope[]; type?: 'secret' | 'public'; expiresAt?: string; name?: string } = {},
): Promise<{ key: string; id: string }> {
  const response = await t
    .admin()
    .post(`/admin/v1/tenants/${tenantId}/api-keys`)
    .send({
      name: options.name ?? 'test key',
      // A public key takes no scopes.
      scopes: options.scopes ?? (options.type === 'public' ? [] : [...ALL_SCOPES]),
      ...(options.type ? { type: options.type } : {}),
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    });
  expectStatus(response, 201, 'create key');
  return { key: response.body.key, id: response.body.apiKey.id };
}

export async function createBot(t: TestApp, tenantId: string, body: Record<string, unknown> = {}): Promise<{ id: string; name: string; isActive: boolean }> {
  const response = await t
    .admin()
    .post(`/admin/v1/tenants/${tenantId}/bots`)
    .send({ name: `Bot ${randomUUID().slice(0, 6)}`, ...body });
  expectStatus(response, 201, 'create bot');
  return response.body.bot;
}

export async function recordConversation(
  t: TestApp,
  tenantId: string,
  botId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; leadId: string | null }> {
  const response = await t
    .admin()
    .post(`/admin/v1/tenants/${tenantId}/bots/${botId}/conversations`)
    .send({
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi! How can I help?' },
      ],
      ...body,
    });
  expectStatus(response, 201, 'record conversation');
  return response.body.conversation;
}

export async function createLead(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown> & { id: string }> {
  const response = await t
    .http()
    .post('/api/v1/leads')
    .set('X-API-Key', key)
    .send({ name: 'Test Lead', email: `lead-${randomUUID().slice(0, 8)}@example.com`, ...body });
  expectStatus(response, 201, 'create lead');
  return response.body.lead;
}

/** A webhook endpoint of the key's tenant (`POST /api/v1/webhooks`); its id. */
export async function createWebhookEndpoint(t: TestApp, key: string, url: string, events: string[]): Promise<string> {
  const response = await t.http().post('/api/v1/webhooks').set('X-API-Key', key).send({ url, events });
  expectStatus(response, 201, 'create webhook endpoint');
  return response.body.webhook.id;
}

/** A key with its last character changed: well formed, and never the key itself, whatever it ends in. */
export function changeLastCharacter(key: string): string {
  return key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
}
