import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import type { TestApp } from './create-test-app';

/** The service's own origin in the tests (PUBLIC_URL of create-test-app): what the dashboard's pages send. */
export const ORIGIN = 'http://dashboard.test';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  /** `svc_session=<token>`, for the Cookie header. */
  cookie: string;
  /** The tenant the user signed up with (they own it). */
  tenantId: string;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type UserClient = Record<Method, (url: string) => request.Test>;

/** The session cookie a Set-Cookie answer carries, as a Cookie header value. */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const setCookie = ([] as string[]).concat((response.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = setCookie.find((line) => line.startsWith('svc_session='));
  if (!cookie) throw new Error(`No session cookie in ${JSON.stringify(setCookie)}`);
  return cookie.split(';')[0];
}

export const newEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 12)}@example.test`;

/**
 * Signs up a new user with a new tenant they own; from `clientIp` (sent as X-Forwarded-For, for apps
 * with TRUST_PROXY=loopback) where a suite runs with the sign-up limits per address.
 */
export async function signUp(
  t: TestApp,
  overrides: { email?: string; password?: string; name?: string; tenantName?: string } = {},
  clientIp?: string,
): Promise<TestUser> {
  const body = { email: newEmail(), password: 'correct horse battery', name: 'Test User', tenantName: 'Test Tenant', ...overrides };
  const request = t.http().post('/auth/v1/signup').set('Origin', ORIGIN).set('User-Agent', 'e2e-browser');
  const response = await (clientIp ? request.set('X-Forwarded-For', clientIp) : request).send(body);
  if (response.status !== 201) throw new Error(`sign-up answered ${response.status}: ${JSON.stringify(response.body)}`);
  return {
    id: response.body.user.id,
    email: body.email,
    password: body.password,
    cookie: sessionCookieOf(response),
    tenantId: response.body.memberships[0].tenant.id,
  };
}

export async function logIn(t: TestApp, email: string, password: string): Promise<string> {
  const response = await t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('User-Agent', 'e2e-browser').send({ email, password });
  if (response.status !== 201) throw new Error(`log-in answered ${response.status}: ${JSON.stringify(response.body)}`);
  return sessionCookieOf(response);
}

/** Requests as a signed-in user: the cookie, the dashboard's Origin, and X-Tenant-Id unless null. */
export function asUser(t: TestApp, cookie: string, tenantId: string | null): UserClient {
  const make = (method: Method) => (url: string) => {
    const test = t.http()[method](url).set('Cookie', cookie).set('Origin', ORIGIN);
    return tenantId === null ? test : test.set('X-Tenant-Id', tenantId);
  };
  return { get: make('get'), post: make('post'), put: make('put'), patch: make('patch'), delete: make('delete') };
}

/**
 * A new user with `role` in the owner's tenant, signed in: invited by the owner and accepted,
 * through the API (the invitation flow is tested in accounts-invitations.e2e-spec.ts).
 */
export async function addMember(t: TestApp, owner: TestUser, role: 'owner' | 'admin' | 'agent' | 'viewer'): Promise<TestUser> {
  const email = newEmail(role);
  const password = 'member password 123';
  const invited = await asUser(t, owner.cookie, owner.tenantId).post('/api/v1/invitations').send({ email, role });
  if (invited.status !== 201) throw new Error(`invitation answered ${invited.status}: ${JSON.stringify(invited.body)}`);
  const token = new URL(invited.body.acceptUrl).searchParams.get('token');
  const accepted = await t
    .http()
    .post('/auth/v1/invitations/accept')
    .set('Origin', ORIGIN)
    .send({ token, name: `A ${role}`, password });
  if (accepted.status !== 201) throw new Error(`accepting answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  return { id: accepted.body.user.id, email, password, cookie: sessionCookieOf(accepted), tenantId: owner.tenantId };
}
