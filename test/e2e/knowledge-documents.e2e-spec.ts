import { randomUUID } from 'node:crypto';
import { ALL_SCOPES } from '../../src/common/access/scopes';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { asUser, signUp } from '../support/users';

interface Reply {
  content: string;
  unanswered?: boolean;
  sources: { id: string; title: string }[];
}

describe('Knowledge documents API: /api/v1/bots/:id/documents', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let botId: string;
  let otherBotId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    other = await createTenant(t, { plan: 'pro' });
    botId = (await createBot(t, tenant.id, { language: 'en' })).id;
    otherBotId = (await createBot(t, other.id)).id;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', tenant.key)
      .send({ visitorMessageLimit: { messages: 1000 } })
      .expect(200);
  });
  afterAll(() => t.close());

  const base = (bot = botId) => `/api/v1/bots/${bot}/documents`;
  const create = (body: unknown, key = tenant.key, bot = botId) =>
    t
      .http()
      .post(base(bot))
      .set('X-API-Key', key)
      .send(body as object);
  const patch = (docId: string, body: unknown, key = tenant.key, bot = botId) =>
    t
      .http()
      .patch(`${base(bot)}/${docId}`)
      .set('X-API-Key', key)
      .send(body as object);
  const get = (path: string, key = tenant.key) => t.http().get(path).set('X-API-Key', key);
  const remove = (docId: string, key = tenant.key, bot = botId) =>
    t
      .http()
      .delete(`${base(bot)}/${docId}`)
      .set('X-API-Key', key);
  const knowledgeBaseSize = async (bot = botId, key = tenant.key) => (await get(`/api/v1/bots/${bot}`, key).expect(200)).body.bot.knowledgeBaseSize as number;
  const auditOf = (documentId: string) =>
    t.prisma.auditEvent.findMany({
      where: { targetId: documentId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { tenantId: true, actor: true, requestId: true, action: true, targetType: true, data: true },
    });

  describe('POST', () => {
    it('creates a document: 201 with the whole document, the title trimmed, characters counted in code points', async () => {
      const before = await knowledgeBaseSize();
      const response = await create({ title: '  Refunds  ', content: 'Refunds within 30 days 😀.' }).set('X-Request-Id', 'kd-create-1');
      expect({ status: response.status, body: response.body }).toEqual({
        status: 201,
        body: {
          document: {
            id: expect.stringMatching(UUID),
            title: 'Refunds',
            characters: 25,
            content: 'Refunds within 30 days 😀.',
            createdAt: expect.stringMatching(ISO_MS),
            updatedAt: response.body.document.createdAt,
          },
        },
      });
      expect(await knowledgeBaseSize()).toBe(before + 1);
      expect(await auditOf(response.body.document.id)).toEqual([
        {
          tenantId: tenant.id,
          actor: `api-key:${tenant.keyId}`,
          requestId: 'kd-create-1',
          action: 'knowledge_document.created',
          targetType: 'knowledge_document',
          data: { botId, title: 'Refunds', characters: 25 },
        },
      ]);
    });

    it('accepts 200,000 characters of four bytes each (an 800 KB body)', async () => {
      const content = '😀'.repeat(200_000);
      const response = await create({ title: 'Emoji', content });
      expect({ status: response.status, characters: response.body.document?.characters }).toEqual({ status: 201, characters: 200_000 });
      expect((await get(`${base()}/${response.body.document.id}`).expect(200)).body.document.content).toBe(content);
    });

    it.each([
      ['no title', { content: 'text' }, 'title', 'must be a string'],
      ['a blank title', { title: '   ', content: 'text' }, 'title', 'must be 1 to 200 characters'],
      ['a title of 201 characters', { title: 't'.repeat(201), content: 'text' }, 'title', 'must be 1 to 200 characters'],
      ['a null title', { title: null, content: 'text' }, 'title', 'must be a string'],
      ['no content', { title: 'Title' }, 'content', 'must be a string'],
      ['empty content', { title: 'Title', content: '' }, 'content', 'must be 1 to 200000 characters'],
      ['content of 200,001 characters', { title: 'Title', content: 'a'.repeat(200_001) }, 'content', 'must be 1 to 200000 characters'],
      ['a number as content', { title: 'Title', content: 42 }, 'content', 'must be a string'],
      ['an unknown field', { title: 'Title', content: 'text', botId: randomUUID() }, 'botId', 'is not an allowed field'],
    ])('refuses %s with 400 and stores nothing', async (_what, body, field, message) => {
      const before = await knowledgeBaseSize();
      expectError(await create(body), 400, 'VALIDATION_ERROR', [{ field, message }]);
      expect(await knowledgeBaseSize()).toBe(before);
    });

    it('accepts a title of exactly 200 characters (code points: 200 emoji)', async () => {
      expect((await create({ title: '😀'.repeat(200), content: 'text' })).status).toBe(201);
    });

    it('answers 413 past 1 MiB, 415 for a body that is not JSON, and stores nothing', async () => {
      const before = await knowledgeBaseSize();
      expectError(await create({ title: 'Huge', content: 'a'.repeat(1024 * 1024) }), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await t.http().post(base()).set('X-API-Key', tenant.key).set('Content-Type', 'text/plain').send('title=x'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await knowledgeBaseSize()).toBe(before);
    });

    it("answers 404 for an unknown bot, a malformed bot id and another tenant's bot, and stores nothing", async () => {
      for (const bot of [randomUUID(), 'not-a-uuid', otherBotId]) expectError(await create({ title: 'x', content: 'y' }, tenant.key, bot), 404, 'NOT_FOUND');
      expect(await knowledgeBaseSize(otherBotId, other.key)).toBe(0);
    });
  });

  describe('GET (list and one)', () => {
    let listBot: string;
    const ids: string[] = [];

    beforeAll(async () => {
      listBot = (await createBot(t, tenant.id)).id;
      for (const title of ['First', 'Second', 'Third'])
        ids.push((await create({ title, content: `The ${title.toLowerCase()} document.` }, tenant.key, listBot).expect(201)).body.document.id);
    });

    it('lists newest first, without content, paginated with limit and offset', async () => {
      const summary = async (id: string) => {
        const { content: _content, ...rest } = (await get(`${base(listBot)}/${id}`).expect(200)).body.document;
        return rest;
      };
      const first = await get(`${base(listBot)}?limit=2`);
      expect({ status: first.status, body: first.body }).toEqual({
        status: 200,
        body: { documents: [await summary(ids[2]), await summary(ids[1])], pagination: { total: 3, limit: 2, offset: 0, hasMore: true } },
      });
      const second = await get(`${base(listBot)}?limit=2&offset=2`);
      expect({ status: second.status, body: second.body }).toEqual({
        status: 200,
        body: { documents: [await summary(ids[0])], pagination: { total: 3, limit: 2, offset: 2, hasMore: false } },
      });
      const all = await get(base(listBot));
      expect(all.body.pagination).toEqual({ total: 3, limit: 20, offset: 0, hasMore: false });
      expect(Object.keys(all.body.documents[0]).sort()).toEqual(['characters', 'createdAt', 'id', 'title', 'updatedAt']);
    });

    it('lists an empty page for a bot without documents', async () => {
      const empty = (await createBot(t, tenant.id)).id;
      expect((await get(base(empty))).body).toEqual({ documents: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
    });

    it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5', 'search=x'])('refuses ?%s with 400', async (query) => {
      expectError(await get(`${base(listBot)}?${query}`), 400, 'VALIDATION_ERROR', [{ field: query.split('=')[0], message: expect.any(String) }]);
    });

    it('gets one document with its content', async () => {
      const response = await get(`${base(listBot)}/${ids[0]}`);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: {
          document: {
            id: ids[0],
            title: 'First',
            characters: 19,
            content: 'The first document.',
            createdAt: expect.stringMatching(ISO_MS),
            updatedAt: expect.stringMatching(ISO_MS),
          },
        },
      });
    });

    it("answers 404 for another tenant's bot or document, another bot's document, unknown and malformed ids", async () => {
      const theirDoc = (
        await t.admin().post(`/admin/v1/tenants/${other.id}/bots/${otherBotId}/documents`).send({ title: 'Theirs', content: 'Their text.' }).expect(201)
      ).body.document.id;
      for (const path of [
        base(otherBotId),
        base(randomUUID()),
        base('not-a-uuid'),
        `${base(otherBotId)}/${theirDoc}`,
        `${base(listBot)}/${theirDoc}`,
        `${base(botId)}/${ids[0]}`,
        `${base(listBot)}/${randomUUID()}`,
        `${base(listBot)}/not-a-uuid`,
        `${base('not-a-uuid')}/${ids[0]}`,
      ]) {
        expectError(await get(path), 404, 'NOT_FOUND');
      }
      // Their own key reads it: the 404 was about ownership.
      expect((await get(`${base(otherBotId)}/${theirDoc}`, other.key)).status).toBe(200);
    });
  });

  describe('PATCH', () => {
    let docId: string;
    let created: { createdAt: string; updatedAt: string };

    beforeAll(async () => {
      const response = await create({ title: 'Hours', content: 'We open at nine.' }).expect(201);
      docId = response.body.document.id;
      created = response.body.document;
    });

    it('changes the title alone: 200, updatedAt moves, createdAt and content stay, audited without the content', async () => {
      const response = await patch(docId, { title: ' Opening hours ' }).set('X-Request-Id', 'kd-patch-1');
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: {
          document: {
            id: docId,
            title: 'Opening hours',
            characters: 16,
            content: 'We open at nine.',
            createdAt: created.createdAt,
            updatedAt: expect.stringMatching(ISO_MS),
          },
        },
      });
      expect(response.body.document.updatedAt >= created.updatedAt).toBe(true);
      expect((await auditOf(docId)).at(-1)).toEqual({
        tenantId: tenant.id,
        actor: `api-key:${tenant.keyId}`,
        requestId: 'kd-patch-1',
        action: 'knowledge_document.updated',
        targetType: 'knowledge_document',
        data: { botId, title: 'Opening hours', characters: 16, fields: ['title'] },
      });
    });

    it('changes the content: characters follow, the bot keeps its document count', async () => {
      const size = await knowledgeBaseSize();
      const response = await patch(docId, { content: 'We open at ten.' });
      expect({ status: response.status, document: response.body.document }).toEqual({
        status: 200,
        document: expect.objectContaining({ title: 'Opening hours', content: 'We open at ten.', characters: 15 }),
      });
      expect(await knowledgeBaseSize()).toBe(size);
      expect(JSON.stringify(await auditOf(docId))).not.toContain('We open');
    });

    it('writes nothing when nothing changes: the same updatedAt, no audit event', async () => {
      const current = (await get(`${base()}/${docId}`).expect(200)).body.document;
      const events = (await auditOf(docId)).length;
      const response = await patch(docId, { title: current.title, content: current.content });
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { document: current } });
      expect((await auditOf(docId)).length).toBe(events);
    });

    it.each([
      ['an empty body', {}, 'body', 'must have at least one field to change'],
      ['a null title', { title: null }, 'title', 'must be a string'],
      ['null content', { content: null }, 'content', 'must be a string'],
      ['an empty title', { title: '' }, 'title', 'must be 1 to 200 characters'],
      ['a title of 201 characters', { title: 'x'.repeat(201) }, 'title', 'must be 1 to 200 characters'],
      ['content of 200,001 characters', { content: 'a'.repeat(200_001) }, 'content', 'must be 1 to 200000 characters'],
      ['an unknown field', { title: 'x', isActive: false }, 'isActive', 'is not an allowed field'],
    ])('refuses %s with 400 and changes nothing', async (_what, body, field, message) => {
      const before = (await get(`${base()}/${docId}`).expect(200)).body.document;
      expectError(await patch(docId, body), 400, 'VALIDATION_ERROR', [{ field, message }]);
      expect((await get(`${base()}/${docId}`).expect(200)).body.document).toEqual(before);
    });

    it('answers 413 past 1 MiB', async () => {
      expectError(await patch(docId, { content: 'é'.repeat(600_000) }), 413, 'PAYLOAD_TOO_LARGE');
    });

    it("answers 404 for another tenant's bot or document, another bot's document, unknown and malformed ids", async () => {
      const theirDoc = (
        await t.admin().post(`/admin/v1/tenants/${other.id}/bots/${otherBotId}/documents`).send({ title: 'Theirs', content: 'Their text.' }).expect(201)
      ).body.document.id;
      const siblingBot = (await createBot(t, tenant.id)).id;
      for (const [bot, doc] of [
        [otherBotId, theirDoc],
        [botId, theirDoc],
        [siblingBot, docId],
        [botId, randomUUID()],
        [botId, 'not-a-uuid'],
        ['not-a-uuid', docId],
      ]) {
        expectError(await patch(doc, { title: 'Hijacked' }, tenant.key, bot), 404, 'NOT_FOUND');
      }
      expect((await get(`${base(otherBotId)}/${theirDoc}`, other.key).expect(200)).body.document.title).toBe('Theirs');
    });
  });

  describe('DELETE', () => {
    it('deletes: 204 without a body, then 404; knowledgeBaseSize follows; audited with title and characters', async () => {
      const docId = (await create({ title: 'Temporary', content: 'Soon gone.' }).expect(201)).body.document.id;
      const size = await knowledgeBaseSize();
      const response = await remove(docId).set('X-Request-Id', 'kd-delete-1');
      expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' });
      expect(await knowledgeBaseSize()).toBe(size - 1);
      expectError(await get(`${base()}/${docId}`), 404, 'NOT_FOUND');
      expectError(await remove(docId), 404, 'NOT_FOUND');
      expect(await t.prisma.knowledgeChunk.count({ where: { documentId: docId } })).toBe(0);
      expect((await auditOf(docId)).map(({ action, requestId, data }) => ({ action, requestId, data }))).toEqual([
        { action: 'knowledge_document.created', requestId: expect.any(String), data: { botId, title: 'Temporary', characters: 10 } },
        { action: 'knowledge_document.deleted', requestId: 'kd-delete-1', data: { botId, title: 'Temporary', characters: 10 } },
      ]);
    });

    it("answers 404 for another tenant's document, another bot's document, unknown and malformed ids, and deletes nothing", async () => {
      const theirDoc = (
        await t.admin().post(`/admin/v1/tenants/${other.id}/bots/${otherBotId}/documents`).send({ title: 'Theirs', content: 'Their text.' }).expect(201)
      ).body.document.id;
      const mine = (await create({ title: 'Mine', content: 'My text.' }).expect(201)).body.document.id;
      const siblingBot = (await createBot(t, tenant.id)).id;
      for (const [bot, doc] of [
        [otherBotId, theirDoc],
        [botId, theirDoc],
        [siblingBot, mine],
        [botId, randomUUID()],
        [botId, 'not-a-uuid'],
        ['not-a-uuid', mine],
      ]) {
        expectError(await remove(doc, tenant.key, bot), 404, 'NOT_FOUND');
      }
      expect((await get(`${base(otherBotId)}/${theirDoc}`, other.key)).status).toBe(200);
      expect((await get(`${base()}/${mine}`)).status).toBe(200);
    });
  });

  describe('access', () => {
    let docId: string;
    beforeAll(async () => {
      docId = (await create({ title: 'Guarded', content: 'Guarded text.' }).expect(201)).body.document.id;
    });

    const routes = () =>
      [
        ['GET list', 'bots:read', (key: string) => get(base(), key)],
        ['GET one', 'bots:read', (key: string) => get(`${base()}/${docId}`, key)],
        ['POST', 'knowledge:write', (key: string) => create({ title: 'x', content: 'y' }, key)],
        ['PATCH', 'knowledge:write', (key: string) => patch(docId, { title: 'Changed' }, key)],
        ['DELETE', 'knowledge:write', (key: string) => remove(docId, key)],
      ] as const;

    it('answers 401 without a key or with an unknown one', async () => {
      for (const [, , send] of routes()) {
        expectError(await send(''), 401, 'INVALID_API_KEY');
        expectError(await send('svc_sk_unknown'), 401, 'INVALID_API_KEY');
      }
    });

    it('answers 403 INSUFFICIENT_SCOPE to a key with every scope but the needed one, and to a public key, changing nothing', async () => {
      const publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
      const size = await knowledgeBaseSize();
      for (const [, scope, send] of routes()) {
        const allBut = (await createKey(t, tenant.id, { scopes: ALL_SCOPES.filter((s) => s !== scope) })).key;
        expectError(await send(allBut), 403, 'INSUFFICIENT_SCOPE');
        expectError(await send(publicKey), 403, 'INSUFFICIENT_SCOPE');
      }
      expect(await knowledgeBaseSize()).toBe(size);
      expect((await get(`${base()}/${docId}`).expect(200)).body.document.title).toBe('Guarded');
    });

    it('lets a key with knowledge:write alone write, and one with bots:read alone read', async () => {
      const writer = (await createKey(t, tenant.id, { scopes: ['knowledge:write'] })).key;
      const reader = (await createKey(t, tenant.id, { scopes: ['bots:read'] })).key;
      expect((await get(`${base()}/${docId}`, reader)).status).toBe(200);
      expect((await patch(docId, { title: 'Changed' }, writer)).status).toBe(200);
      const created = await create({ title: 'By writer', content: 'text' }, writer);
      expect(created.status).toBe(201);
      expect((await remove(created.body.document.id, writer)).status).toBe(204);
    });

    it('refuses a Free tenant with 403 PLAN_UPGRADE_REQUIRED', async () => {
      const free = await createTenant(t, { plan: 'free' });
      expectError(await create({ title: 'x', content: 'y' }, free.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });
  });

  describe("the plan's knowledge size (Free: 1,000,000 characters, all documents together)", () => {
    it('refuses a document or a change past it with 403 PLAN_LIMIT_REACHED, storing nothing; GET /api/v1/tenant shows it', async () => {
      const owner = await signUp(t);
      const as = asUser(t, owner.cookie, owner.tenantId);
      const bot = (await as.post('/api/v1/bots').send({ name: 'Docs' }).expect(201)).body.bot.id as string;
      const documents = `/api/v1/bots/${bot}/documents`;
      // At most 200,000 characters a document: four of them, and one of 150,000 four-byte characters (code points are counted).
      for (let i = 0; i < 4; i++)
        await as
          .post(documents)
          .send({ title: `Part ${i}`, content: 'a'.repeat(200_000) })
          .expect(201);
      const big = (
        await as
          .post(documents)
          .send({ title: 'Big', content: '😀'.repeat(150_000) })
          .expect(201)
      ).body.document;
      await as
        .post(documents)
        .send({ title: 'Small', content: 'e'.repeat(30_000) })
        .expect(201);
      // 980,000 characters now.
      expectError(await as.post(documents).send({ title: 'One too many', content: 'b'.repeat(20_001) }), 403, 'PLAN_LIMIT_REACHED');
      expectError(await as.patch(`${documents}/${big.id}`).send({ content: 'c'.repeat(170_001) }), 403, 'PLAN_LIMIT_REACHED');
      // A change is counted instead of the old content, not on top of it; exactly the limit is allowed.
      await as
        .patch(`${documents}/${big.id}`)
        .send({ content: 'c'.repeat(170_000) })
        .expect(200);
      expect(await t.prisma.knowledgeDocument.count({ where: { tenantId: owner.tenantId } })).toBe(6);
      const { tenant: view } = (await as.get('/api/v1/tenant').expect(200)).body;
      expect({ limit: view.limits.knowledgeCharactersLimit, used: view.usage.knowledgeCharacters }).toEqual({ limit: 1_000_000, used: 1_000_000 });
      // The admin API's writes count too.
      const refused = await t.admin().post(`/admin/v1/tenants/${owner.tenantId}/bots/${bot}/documents`).send({ title: 'Admin', content: 'x' });
      expectError(refused, 403, 'PLAN_LIMIT_REACHED');
    });

    it('lets only one of two concurrent writes pass when together they would exceed it', async () => {
      const owner = await signUp(t);
      const as = asUser(t, owner.cookie, owner.tenantId);
      const bot = (await as.post('/api/v1/bots').send({ name: 'Docs' }).expect(201)).body.bot.id as string;
      for (let i = 0; i < 3; i++)
        await as
          .post(`/api/v1/bots/${bot}/documents`)
          .send({ title: `Part ${i}`, content: 'word '.repeat(40_000) })
          .expect(201);
      // 600,000 characters: room for two more documents of 200,000, not three.
      const answers = await Promise.all(
        ['First', 'Second', 'Third'].map((title) => as.post(`/api/v1/bots/${bot}/documents`).send({ title, content: 'word '.repeat(40_000) })),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 403]);
      const stored = await t.prisma.knowledgeDocument.aggregate({ where: { tenantId: owner.tenantId }, _sum: { characters: true } });
      expect(stored._sum.characters).toBe(1_000_000);
    });
  });

  describe('the answer path: a change is what the bot answers from as soon as the change returns', () => {
    let publicKey: string;
    let answerBot: string;
    let conversation: { token: string; id: string };

    beforeAll(async () => {
      publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
      answerBot = (await createBot(t, tenant.id, { language: 'en' })).id;
      const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId: answerBot }).expect(201)).body
        .visitorToken as string;
      const id = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', token).send({}).expect(201)).body
        .conversation.id as string;
      conversation = { token, id };
    });

    const ask = async (question: string): Promise<Reply> =>
      (
        await t
          .http()
          .post(`/api/v1/widget/conversations/${conversation.id}/messages`)
          .set('X-API-Key', publicKey)
          .set('X-Visitor-Token', conversation.token)
          .send({ content: question })
          .expect(201)
      ).body.reply;

    it("moves the bot's knowledge version with every change to its passages (the word counts cached for questions follow it), and no other bot's", async () => {
      const versionOf = async (bot: string) =>
        (await t.prisma.bot.findUniqueOrThrow({ where: { id: bot }, select: { knowledgeVersion: true } })).knowledgeVersion;
      const before = await versionOf(answerBot);
      const untouched = await versionOf(botId);
      const created = (await create({ title: 'Lockers', content: 'Lockers are in the basement.' }, tenant.key, answerBot).expect(201)).body.document;
      const afterCreate = await versionOf(answerBot);
      expect(afterCreate).toBeGreaterThan(before);
      await patch(created.id, { content: 'Lockers are on the ground floor.' }, tenant.key, answerBot).expect(200);
      const afterUpdate = await versionOf(answerBot);
      expect(afterUpdate).toBeGreaterThan(afterCreate);
      await patch(created.id, { content: 'Lockers are on the ground floor.' }, tenant.key, answerBot).expect(200);
      expect(await versionOf(answerBot)).toBe(afterUpdate);
      // A language change re-indexes the passages (a trigger, whichever path changes the bot).
      await t.prisma.bot.update({ where: { id: answerBot }, data: { language: 'de' } });
      const afterLanguage = await versionOf(answerBot);
      expect(afterLanguage).toBeGreaterThan(afterUpdate);
      await t.prisma.bot.update({ where: { id: answerBot }, data: { language: 'en' } });
      const restored = await versionOf(answerBot);
      await remove(created.id, tenant.key, answerBot).expect(204);
      expect(await versionOf(answerBot)).toBeGreaterThan(restored);
      expect(await versionOf(botId)).toBe(untouched);
    });

    it('cites a created document, answers the new content after a PATCH and never the old, and never cites it once deleted', async () => {
      const created = (
        await create({ title: 'Parking', content: 'Visitors park free of charge in the Zephyr garage behind the museum.' }, tenant.key, answerBot).expect(201)
      ).body.document;
      const first = await ask('Where is the Zephyr garage?');
      expect(first.sources).toEqual([{ id: created.id, title: 'Parking' }]);
      expect(first.content).toContain('Zephyr garage');

      await patch(created.id, { content: 'Visitors park free of charge in the Quokka lot beside the museum.' }, tenant.key, answerBot).expect(200);
      const updated = await ask('Where is the Quokka lot?');
      expect(updated.sources).toEqual([{ id: created.id, title: 'Parking' }]);
      expect(updated.content).toContain('Quokka lot');
      expect(updated.content).not.toContain('Zephyr');
      const old = await ask('Where is the Zephyr garage?');
      expect(old.sources).toEqual([]);
      expect(old.content).not.toContain('Zephyr');

      await patch(created.id, { title: 'Car park' }, tenant.key, answerBot).expect(200);
      expect((await ask('Where is the Quokka lot?')).sources).toEqual([{ id: created.id, title: 'Car park' }]);

      await remove(created.id, tenant.key, answerBot).expect(204);
      for (const question of ['Where is the Quokka lot?', 'Where is the Zephyr garage?', 'Where can I park?']) {
        const reply = await ask(question);
        expect(reply.sources).toEqual([]);
        expect(reply.content).not.toMatch(/Quokka|Zephyr/);
      }
    });
  });
});
