import { SignJWT } from 'jose';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey } from '../support/factories';
import { asUser, signUp } from '../support/users';

/**
 * GET /api/v1/widget/conversations (API_DECISIONS, Known visitors): a visitor known by an identity
 * token is the same visitor on every device, and their conversations follow them there.
 */
describe('Widget: the visitor’s conversations', () => {
  const HOUR_S = 3600;
  let t: TestApp;
  let publicKey: string;
  let botId: string;
  let otherBotId: string;
  let secret: string;

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await signUp(t);
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'enterprise' }).expect(200);
    publicKey = (await createKey(t, owner.tenantId, { type: 'public' })).key;
    botId = (await createBot(t, owner.tenantId)).id;
    otherBotId = (await createBot(t, owner.tenantId)).id;
    secret = (await asUser(t, owner.cookie, owner.tenantId).post('/api/v1/identity-secret').expect(201)).body.secret;
  });
  afterAll(() => t.close());

  /** An HS256 identity token for the user `sub`, as the tenant's back end signs it. */
  const sign = (sub: string): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sub, iat: now, exp: now + HOUR_S }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
  };
  /** A visitor token: of the user `sub` when given, else of a new anonymous visitor. */
  const sessionOf = async (sub?: string, bot = botId): Promise<{ visitorToken: string; visitorId: string }> =>
    (
      await t
        .http()
        .post('/api/v1/widget/sessions')
        .set('X-API-Key', publicKey)
        .send({ botId: bot, ...(sub ? { identityToken: await sign(sub) } : {}) })
        .expect(201)
    ).body;
  const widget = (method: 'get' | 'post', path: string, visitorToken?: string) => {
    const request = t.http()[method](`/api/v1/widget${path}`).set('X-API-Key', publicKey);
    return visitorToken ? request.set('X-Visitor-Token', visitorToken) : request;
  };
  const start = async (visitorToken: string): Promise<string> =>
    (await widget('post', '/conversations', visitorToken).send({}).expect(201)).body.conversation.id;
  const listed = async (visitorToken: string): Promise<Record<string, unknown>[]> =>
    (await widget('get', '/conversations', visitorToken).expect(200)).body.conversations;

  it('shows a known visitor’s conversations on a second device, newest first, with their messages', async () => {
    const laptop = await sessionOf('user-history');
    const earlier = await start(laptop.visitorToken);
    await widget('post', `/conversations/${earlier}/end`, laptop.visitorToken).send({}).expect(200);
    const latest = await start(laptop.visitorToken);
    await widget('post', `/conversations/${latest}/messages`, laptop.visitorToken).send({ content: 'Sent from the laptop' }).expect(201);

    const phone = await sessionOf('user-history');
    expect(phone.visitorId).toBe(laptop.visitorId);
    const conversations = await listed(phone.visitorToken);
    expect(conversations.map(({ id, status }) => [id, status])).toEqual([
      [latest, 'active'],
      [earlier, 'ended'],
    ]);
    // The shape every widget route gives a conversation.
    const started = (await widget('post', '/conversations', phone.visitorToken).send({}).expect(201)).body.conversation;
    expect(Object.keys(conversations[0]).sort()).toEqual(Object.keys(started).sort());
    expect((await listed(phone.visitorToken))[0]).toEqual(started);

    const messages = (await widget('get', `/conversations/${latest}/messages`, phone.visitorToken).expect(200)).body.messages as {
      role: string;
      content: string;
    }[];
    expect(messages).toContainEqual(expect.objectContaining({ role: 'user', content: 'Sent from the laptop' }));
  });

  it('lists only the visitor’s own conversations with the token’s bot', async () => {
    const mine = await start((await sessionOf('user-own')).visitorToken);
    const others = [await sessionOf('user-someone-else'), await sessionOf(), await sessionOf('user-own', otherBotId)];
    for (const other of others) expect((await listed(other.visitorToken)).map(({ id }) => id)).not.toContain(mine);
    // An anonymous visitor gets their own too.
    const anonymous = await sessionOf();
    const theirs = await start(anonymous.visitorToken);
    expect((await listed(anonymous.visitorToken)).map(({ id }) => id)).toEqual([theirs]);
  });

  it('gives the newest 20', async () => {
    const visitor = await sessionOf('user-many');
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push(await start(visitor.visitorToken));
    expect((await listed(visitor.visitorToken)).map(({ id }) => id)).toEqual(ids.slice(1).reverse());
  });

  it('needs a visitor token (401) and a public key', async () => {
    expectError(await widget('get', '/conversations'), 401, 'INVALID_VISITOR_TOKEN');
    expectError(await widget('get', '/conversations', 'not-a-token'), 401, 'INVALID_VISITOR_TOKEN');
    const { visitorToken } = await sessionOf('user-own');
    expectError(await t.http().get('/api/v1/widget/conversations').set('X-Visitor-Token', visitorToken), 401, 'INVALID_API_KEY');
  });
});
