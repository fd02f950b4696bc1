import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { get as httpGet, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { Response } from 'supertest';
import type { AccessRule } from '../../src/common/access/access.decorators';
import { ErrorCode } from '../../src/common/errors/error-codes';
import type { RateLimitPlans } from '../../src/rate-limit/plan-limits';
import { ALL_SCOPES } from '../../src/common/access/scopes';
import { controllerRoutes } from '../support/controller-routes';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';
import { addMember, asUser, logIn, newEmail, ORIGIN, signUp, type TestUser } from '../support/users';
import { COMMITTED_DOCUMENT_PATH, OpenApiContract, OpenApiDocument, servedRoutes, toOpenApiRoute } from '../support/openapi-contract';

const UUID_ZERO = '00000000-0000-4000-8000-000000000000';

/** Limits the contract's 429 can be reached with: one request an hour on Pro. */
const ONE_PER_HOUR: RateLimitPlans = {
  free: { requestsPerHour: 1, burstPerSecond: 1_000 },
  pro: { requestsPerHour: 1, burstPerSecond: 1_000 },
  business: { requestsPerHour: 1, burstPerSecond: 1_000 },
  enterprise: { requestsPerHour: 1, burstPerSecond: 1_000 },
};

describe('OpenAPI document and contract', () => {
  let t: TestApp;
  /** A second instance on the same database: production mode behind a trusted proxy, tiny rate limits. */
  let strict: TestApp;
  let served: Response;
  let contract: OpenApiContract;
  let document: OpenApiDocument;
  const exercised = new Set<string>();

  /** Checks the answer's status, then the answer against the document, and records what was exercised. */
  function expectContract(response: Response, method: string, pathTemplate: string, status: number): Response {
    if (response.status !== status) throw new Error(`${method} ${pathTemplate}: expected ${status}, got ${response.status}: ${response.text.slice(0, 500)}`);
    contract.expectMatches(response, method, pathTemplate);
    exercised.add(`${method.toUpperCase()} ${pathTemplate} ${status}`);
    return response;
  }

  beforeAll(async () => {
    t = await createTestApp();
    strict = await createTestApp({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' }, { connection: t.connection, rateLimitPlans: ONE_PER_HOUR });
    served = await t.http().get('/api/v1/openapi.json');
    document = served.body as OpenApiDocument;
    contract = new OpenApiContract(document);
  });

  afterAll(async () => {
    await strict?.close();
    await t?.close();
  });

  describe('the document', () => {
    it('is served without a key as OpenAPI 3.1.0, with title, version and servers', () => {
      expectContract(served, 'GET', '/api/v1/openapi.json', 200);
      expect(document.openapi).toBe('3.1.0');
      expect(document.info).toEqual(expect.objectContaining({ title: 'Chatbot Platform API', version: '1.0.0' }));
      expect(document.servers).toEqual([expect.objectContaining({ url: '/' }), expect.objectContaining({ url: 'http://localhost:3000' })]);
    });

    it('is the committed openapi.json (run `npm run openapi:export` after changing the API)', () => {
      const committed = JSON.parse(readFileSync(COMMITTED_DOCUMENT_PATH, 'utf8'));
      expect(committed).toEqual(document);
    });

    it('describes exactly the routes the app serves, with their methods', () => {
      const routes = servedRoutes(t.app);
      expect(routes.length).toBeGreaterThanOrEqual(25);
      expect(new Set(routes).size).toBe(routes.length);
      expect([...contract.operations()].sort()).toEqual([...routes].sort());
    });

    it("gives every operation the security of its route's access rule", () => {
      const expected = Object.fromEntries(controllerRoutes(t.app).map(({ route, rule }) => [toOpenApiRoute(route), securityOf(rule)]));
      const actual = Object.fromEntries(
        contract.operations().map((route) => {
          const [method, path] = route.split(' ');
          return [route, contract.operation(method, path).security];
        }),
      );
      expect(actual).toEqual(expected);
      expect(actual['GET /api/v1/leads']).toEqual([{ ApiKeyAuth: ['leads:read'] }, USER]);
      expect(actual['GET /api/v1/verify']).toEqual([{ ApiKeyAuth: [] }, USER]);
      expect(actual['GET /api/v1/members']).toEqual([USER]);
      expect(actual['GET /api/v1/audit-log']).toEqual([USER]);
      expect(actual['GET /health/live']).toEqual([]);
      expect(document.components.securitySchemes).toEqual({
        ApiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
        AdminBearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        SessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'svc_session' }),
        TenantId: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Tenant-Id' }),
      });
    });

    it('is valid OpenAPI 3.1 for Redocly (structure, references, unique operation ids, path parameters)', async () => {
      const config = await createConfig({
        rules: {
          struct: 'error',
          'no-unresolved-refs': 'error',
          'operation-operationId-unique': 'error',
          'operation-parameters-unique': 'error',
          'path-parameters-defined': 'error',
          'operation-2xx-response': 'error',
          'operation-summary': 'error',
          'operation-tag-defined': 'error',
          'tag-description': 'error',
          'security-defined': 'error',
          'spec-components-invalid-map-name': 'error',
          'no-unused-components': 'error',
        },
      });
      const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
      expect(problems.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
    });

    it('declares every tag its operations use, each with a description (the sections of /docs)', () => {
      const used = new Set(
        contract.operations().flatMap((route) => (contract.operation(route.split(' ')[0], route.split(' ')[1]) as { tags?: string[] }).tags ?? []),
      );
      const declared = (document as unknown as { tags: { name: string; description?: string }[] }).tags;
      expect([...used].sort()).toEqual(declared.map((tag) => tag.name).sort());
      for (const tag of declared) expect(tag.description).toEqual(expect.any(String));
      expect(declared.map((tag) => tag.name)).toEqual(expect.arrayContaining(['Analytics', 'Settings', 'Widget']));
    });

    it('gives request examples that succeed as written for a tenant like the demo one (Pro, every scope)', async () => {
      const demoLike = await createTenant(t, { plan: 'pro' });
      const examples = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item as Record<string, { requestBody?: { content?: Record<string, { examples?: Record<string, { value: unknown }> }> } }>).flatMap(
          ([method, operation]) =>
            Object.values(operation.requestBody?.content?.['application/json']?.examples ?? {}).map((example) => ({ method, path, body: example.value })),
        ),
      );
      expect(examples.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toContain('POST /api/v1/leads');
      for (const { method, path, body } of examples.filter((example) => example.path.startsWith('/api/v1/') && !example.path.includes('{'))) {
        const response = await t
          .http()
          [method as 'post' | 'put' | 'patch'](path)
          .set('X-API-Key', demoLike.key)
          .send(body as object);
        if (response.status >= 300)
          throw new Error(`The example of ${method.toUpperCase()} ${path} answered ${response.status}: ${response.text.slice(0, 300)}`);
      }
    });

    it('compiles every schema as strict JSON Schema 2020-12', () => {
      expect(contract.compileAll()).toBeGreaterThan(100);
      expect(JSON.stringify(document)).not.toContain('"nullable"');
    });

    it('describes the error envelope with every error code', () => {
      expect(document.components.schemas.ErrorCode).toEqual(expect.objectContaining({ type: 'string', enum: Object.values(ErrorCode) }));
      expect(document.components.schemas.ErrorEnvelope).toEqual({
        type: 'object',
        properties: { error: { $ref: '#/components/schemas/ErrorBody' } },
        required: ['error'],
      });
      expect(document.components.schemas.ErrorBody).toEqual(expect.objectContaining({ required: ['code', 'message', 'status', 'requestId'] }));
    });

    it('closes and bounds every request body: no extra properties, a maxLength on every free string, a maxItems on every array', () => {
      type BodySchema = {
        $ref?: string;
        type?: string | string[];
        properties?: Record<string, BodySchema>;
        items?: BodySchema;
        additionalProperties?: unknown;
        maxLength?: number;
        maxItems?: number;
        enum?: unknown[];
        format?: string;
        pattern?: string;
        anyOf?: BodySchema[];
      };
      const schemas = document.components.schemas as Record<string, BodySchema>;
      const problems: string[] = [];
      const seen = new Set<string>();
      const visit = (schema: BodySchema, where: string): void => {
        if (schema.$ref) {
          const name = schema.$ref.split('/').pop()!;
          if (seen.has(name)) return;
          seen.add(name);
          const target = schemas[name];
          if (target.additionalProperties !== false) problems.push(`${name}: additionalProperties is not false`);
          for (const [property, child] of Object.entries(target.properties ?? {})) visit(child, `${name}.${property}`);
          return;
        }
        for (const option of schema.anyOf ?? []) visit(option, where);
        const types = ([] as string[]).concat(schema.type ?? []);
        // Enums, UUIDs, dates and patterns of a fixed shape are bounded by their format.
        if (types.includes('string') && schema.maxLength === undefined && !schema.enum && !['uuid', 'date-time', 'date'].includes(schema.format ?? ''))
          problems.push(`${where}: no maxLength`);
        if (types.includes('array')) {
          if (schema.maxItems === undefined) problems.push(`${where}: no maxItems`);
          if (schema.items) visit(schema.items, `${where}[]`);
        }
      };
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item) as { requestBody?: { content: Record<string, { schema: BodySchema }> } }[]) {
          if (operation.requestBody) visit(operation.requestBody.content['application/json'].schema, 'body');
        }
      }
      expect(seen.size).toBeGreaterThanOrEqual(10);
      expect(problems).toEqual([]);
    });

    it('describes DTOs from their class-validator rules (the CLI plugin) and nullable fields as type lists', () => {
      const schemas = document.components.schemas as Record<string, { properties: Record<string, unknown>; required?: string[] }>;
      expect(schemas.CreateLeadDto.required).toEqual(['name', 'email']);
      expect(schemas.CreateLeadDto.properties.email).toEqual({
        type: 'string',
        format: 'email',
        maxLength: 254,
        description: expect.stringContaining('top-level domain'),
      });
      expect(schemas.CreateLeadDto.properties.botId).toEqual(expect.objectContaining({ type: ['string', 'null'], format: 'uuid' }));
      expect(schemas.CreateLeadDto.properties.tags).toEqual(
        expect.objectContaining({ type: ['array', 'null'], minItems: 0, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 50 } }),
      );
      expect(schemas.UpdateLeadDto.properties.status).toEqual(expect.objectContaining({ enum: ['new', 'contacted', 'qualified', 'unqualified', 'converted'] }));
      expect(schemas.CreateApiKeyDto.properties.scopes).toEqual({
        type: 'array',
        items: { type: 'string', enum: [...ALL_SCOPES] },
        minItems: 0,
        maxItems: ALL_SCOPES.length,
        description: expect.stringContaining('Required for a secret key, and may be empty'),
      });
      // A public key leaves scopes out: not required in the schema (the secret key's rule is in its description).
      expect(schemas.CreateApiKeyDto.required).toEqual(['name']);
      expect(schemas.CreateTenantDto.properties.plan).toEqual({ type: 'string', enum: ['free', 'pro', 'business', 'enterprise'] });
      expect(schemas.LeadResponse.properties.phone).toEqual({ type: ['string', 'null'] });
      expect(schemas.LeadResponse.properties.conversationId).toEqual(expect.objectContaining({ type: ['string', 'null'], format: 'uuid' }));
      expect(schemas.LeadResponse.required).toHaveLength(13);
      expect(schemas.ConversationResponse.properties.endedAt).toEqual({ type: ['string', 'null'], format: 'date-time' });
    });

    it('documents the query parameters, with the messages default of 50', () => {
      const names = (method: string, path: string) => (contract.operation(method, path).parameters ?? []).map((p) => `${p.in}:${p.name}`).sort();
      expect(names('GET', '/api/v1/leads')).toEqual(['query:botId', 'query:from', 'query:limit', 'query:offset', 'query:search', 'query:to']);
      expect(names('GET', '/api/v1/conversations')).toEqual([
        'query:botId',
        'query:externalId',
        'query:from',
        'query:limit',
        'query:offset',
        'query:sort',
        'query:status',
        'query:to',
      ]);
      expect(names('GET', '/api/v1/conversations/{id}/messages')).toEqual(['path:id', 'query:limit', 'query:offset']);
      const limitOf = (path: string) => contract.operation('GET', path).parameters?.find((p) => p.name === 'limit')?.schema;
      expect(limitOf('/api/v1/leads')).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }));
      expect(limitOf('/api/v1/conversations/{id}/messages')).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 50 }));
    });
  });

  describe('the interactive reference', () => {
    it('serves /docs with its own Content-Security-Policy, and keeps the API on default-src none', async () => {
      const page = expectContract(await t.http().get('/docs'), 'GET', '/docs', 200);
      expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js');
      expect(page.text).not.toMatch(/<script>/);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      const api = await t.http().get('/api/v1/openapi.json');
      expect(api.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    });

    it('serves the page scripts, styles and icon from the app, and 404 for any other file', async () => {
      const init = expectContract(await t.http().get('/docs/assets/docs.js'), 'GET', '/docs/assets/{file}', 200);
      expect(init.text).toContain('"/api/v1/openapi.json"');
      expectContract(await t.http().get('/docs/assets/swagger-ui-bundle.js'), 'GET', '/docs/assets/{file}', 200);
      expectContract(await t.http().get('/docs/assets/swagger-ui.css'), 'GET', '/docs/assets/{file}', 200);
      expectContract(await t.http().get('/docs/assets/favicon-32x32.png'), 'GET', '/docs/assets/{file}', 200);
      expectContract(await t.http().get('/docs/assets/package.json'), 'GET', '/docs/assets/{file}', 404);
      expectContract(await t.http().get('/docs/assets/..%2Fpackage.json'), 'GET', '/docs/assets/{file}', 404);
    });

    it('serves the widget script to any site, cacheable, and the demo page outside production only', async () => {
      const script = expectContract(await t.http().get('/widget.js'), 'GET', '/widget.js', 200);
      expect(script.headers).toMatchObject({
        'content-type': 'application/javascript; charset=utf-8',
        'cache-control': 'public, max-age=300',
        'cross-origin-resource-policy': 'cross-origin',
      });
      expect(script.text).toContain('/api/v1/widget');
      expectContract(await t.http().get('/widget.js?v=2'), 'GET', '/widget.js', 200);
      await expectCompressedCopies('/widget.js');
      expectContract(await strict.http().get('/widget.js').set('X-Forwarded-Proto', 'http'), 'GET', '/widget.js', 403);
      const botId = '00000000-0000-7000-8000-000000000001';
      const key = `svc_pk_${'a'.repeat(33)}`;
      const demo = expectContract(await t.http().get(`/widget/demo?botId=${botId}&key=${key}`), 'GET', '/widget/demo', 200);
      expect(demo.text).toContain(`<script src="/widget.js" data-bot-id="${botId}" data-key="${key}" async></script>`);
      expect(demo.headers['content-security-policy']).toContain("script-src 'self'");
      expectContract(await t.http().get(`/widget/demo?botId=${botId}&key="><script>alert(1)</script>`), 'GET', '/widget/demo', 400);
      expectContract(await strict.http().get(`/widget/demo?botId=${botId}&key=${key}`).set('X-Forwarded-Proto', 'https'), 'GET', '/widget/demo', 404);
    });

    it('serves the dashboard page for /dashboard and its deep links under a strict CSP, its built files, and 404 for any other file', async () => {
      const page = expectContract(await t.http().get('/dashboard'), 'GET', '/dashboard', 200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("script-src 'self';");
      expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(page.text).not.toMatch(/<script>/);
      const deep = expectContract(await t.http().get('/dashboard/bots/123'), 'GET', '/dashboard/{path}', 200);
      expect(deep.text).toBe(page.text);
      const script = page.text.match(/src="\/dashboard\/(assets\/index-[^"]+\.js)"/)![1];
      const asset = expectContract(await t.http().get(`/dashboard/${script}`), 'GET', '/dashboard/{path}', 200);
      expect(asset.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' });
      expectContract(await t.http().get('/dashboard/assets/nothing.js'), 'GET', '/dashboard/{path}', 404);
      await expectCompressedCopies(`/dashboard/${script}`);
      // The page itself is a few hundred bytes: not worth compressing.
      expect((await t.http().get('/dashboard').set('Accept-Encoding', 'br')).headers['content-encoding']).toBeUndefined();
      expectContract(await t.http().get('/dashboard/assets/..%2F..%2Fpackage.json'), 'GET', '/dashboard/{path}', 404);
      expectContract(await strict.http().get('/dashboard').set('X-Forwarded-Proto', 'http'), 'GET', '/dashboard', 403);
    });

    /** The same bytes as brotli, gzip or as they are, as the client's Accept-Encoding asks (read raw: supertest would decode them). */
    async function expectCompressedCopies(path: string): Promise<void> {
      const server = t.app.getHttpServer() as Server;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const raw = (encoding: string) =>
        new Promise<{ headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
          httpGet({ host: '127.0.0.1', port, path, headers: { 'Accept-Encoding': encoding } }, (answer: IncomingMessage) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.on('end', () => resolve({ headers: answer.headers, body: Buffer.concat(chunks) }));
          }).on('error', reject);
        });
      const plain = await raw('identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      // Browsers list gzip first with equal weights; brotli is still chosen.
      const brotli = await raw('gzip, deflate, br, zstd');
      expect(brotli.headers).toMatchObject({ 'content-encoding': 'br', vary: expect.stringContaining('Accept-Encoding') });
      const gzip = await raw('gzip');
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(brotliDecompressSync(brotli.body)).toEqual(plain.body);
      expect(gunzipSync(gzip.body)).toEqual(plain.body);
      expect(brotli.body.length).toBeLessThan(plain.body.length / 2);
    }

    it('follows the HTTPS rule: plain HTTP through a proxy is refused in production', async () => {
      for (const path of ['/docs', '/api/v1/openapi.json']) {
        const refused = expectContract(await strict.http().get(path).set('X-Forwarded-Proto', 'http'), 'GET', path, 403);
        expect(refused.body.error.code).toBe('HTTPS_REQUIRED');
        expectContract(await strict.http().get(path).set('X-Forwarded-Proto', 'https'), 'GET', path, 200);
      }
      expectContract(await strict.http().get('/docs/assets/docs.js').set('X-Forwarded-Proto', 'http'), 'GET', '/docs/assets/{file}', 403);
    });
  });

  describe('answers match the document', () => {
    let tenant: TestTenant;
    let botId: string;
    let conversationId: string;
    let leadId: string;

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'pro' });
      botId = (await createBot(t, tenant.id, { avatarUrl: 'https://cdn.example.com/bot.png' })).id;
      conversationId = (await recordConversation(t, tenant.id, botId, { status: 'ended', visitorId: 'v-1', lead: { name: 'Ada', email: 'ada@example.com' } }))
        .id;
      leadId = (await createLead(t, tenant.key, { company: 'Acme' })).id;
    });

    const key = () => tenant.key;

    describe('/api/v1', () => {
      it('GET /api/v1/verify: 200, 401, 403 PLAN_UPGRADE_REQUIRED, 400', async () => {
        expectContract(await t.http().get('/api/v1/verify').set('X-API-Key', key()), 'GET', '/api/v1/verify', 200);
        const publicKey = await createKey(t, tenant.id, { type: 'public', scopes: [] });
        expectContract(await t.http().get('/api/v1/verify').set('X-API-Key', publicKey.key), 'GET', '/api/v1/verify', 200);
        expectContract(await t.http().get('/api/v1/verify'), 'GET', '/api/v1/verify', 401);
        const free = await createTenant(t, { plan: 'free' });
        expectContract(await t.http().get('/api/v1/verify').set('X-API-Key', free.key), 'GET', '/api/v1/verify', 403);
        expectContract(await t.http().get('/api/v1/verify?x=1').set('X-API-Key', key()), 'GET', '/api/v1/verify', 400);
      });

      it('GET /api/v1/bots: 200, 403 INSUFFICIENT_SCOPE, 401', async () => {
        const list = expectContract(await t.http().get('/api/v1/bots').set('X-API-Key', key()), 'GET', '/api/v1/bots', 200);
        expect(list.body.bots).toHaveLength(1);
        const narrow = await createKey(t, tenant.id, { scopes: ['leads:read'] });
        expectContract(await t.http().get('/api/v1/bots').set('X-API-Key', narrow.key), 'GET', '/api/v1/bots', 403);
        expectContract(await t.http().get('/api/v1/bots').set('X-API-Key', 'svc_sk_not-a-key'), 'GET', '/api/v1/bots', 401);
      });

      it('GET /api/v1/bots/{id}: 200, 404', async () => {
        expectContract(await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', key()), 'GET', '/api/v1/bots/{id}', 200);
        expectContract(await t.http().get(`/api/v1/bots/${UUID_ZERO}`).set('X-API-Key', key()), 'GET', '/api/v1/bots/{id}', 404);
      });

      it('GET /api/v1/conversations: 200, 400', async () => {
        const list = expectContract(await t.http().get('/api/v1/conversations?status=ended').set('X-API-Key', key()), 'GET', '/api/v1/conversations', 200);
        expect(list.body.conversations[0].endedAt).toEqual(expect.any(String));
        expectContract(await t.http().get('/api/v1/conversations?limit=0').set('X-API-Key', key()), 'GET', '/api/v1/conversations', 400);
      });

      it('GET /api/v1/conversations/{id}: 200, 404', async () => {
        expectContract(await t.http().get(`/api/v1/conversations/${conversationId}`).set('X-API-Key', key()), 'GET', '/api/v1/conversations/{id}', 200);
        expectContract(await t.http().get('/api/v1/conversations/not-a-uuid').set('X-API-Key', key()), 'GET', '/api/v1/conversations/{id}', 404);
      });

      it('GET /api/v1/conversations/{id}/messages: 200, 404, 400', async () => {
        const page = expectContract(
          await t.http().get(`/api/v1/conversations/${conversationId}/messages`).set('X-API-Key', key()),
          'GET',
          '/api/v1/conversations/{id}/messages',
          200,
        );
        expect(page.body.pagination.limit).toBe(50);
        expectContract(
          await t.http().get(`/api/v1/conversations/${UUID_ZERO}/messages`).set('X-API-Key', key()),
          'GET',
          '/api/v1/conversations/{id}/messages',
          404,
        );
        expectContract(
          await t.http().get(`/api/v1/conversations/${conversationId}/messages?offset=-1`).set('X-API-Key', key()),
          'GET',
          '/api/v1/conversations/{id}/messages',
          400,
        );
      });

      it('GET /api/v1/leads: 200 with widget and API leads, 400', async () => {
        const list = expectContract(await t.http().get('/api/v1/leads?limit=1').set('X-API-Key', key()), 'GET', '/api/v1/leads', 200);
        expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
        expectContract(await t.http().get('/api/v1/leads?offset=1').set('X-API-Key', key()), 'GET', '/api/v1/leads', 200);
        expectContract(await t.http().get('/api/v1/leads?from=2026-02-01&to=2026-01-01').set('X-API-Key', key()), 'GET', '/api/v1/leads', 400);
      });

      it('GET /api/v1/leads/{id}: 200, 404', async () => {
        expectContract(await t.http().get(`/api/v1/leads/${leadId}`).set('X-API-Key', key()), 'GET', '/api/v1/leads/{id}', 200);
        expectContract(await t.http().get(`/api/v1/leads/${UUID_ZERO}`).set('X-API-Key', key()), 'GET', '/api/v1/leads/{id}', 404);
      });

      it('POST /api/v1/leads: 201 with Location, 400, 415, 413', async () => {
        const created = expectContract(
          await t
            .http()
            .post('/api/v1/leads')
            .set('X-API-Key', key())
            .send({ name: 'Jane', email: 'jane@example.com', botId, phone: '+1 555 0100', tags: ['vip'] }),
          'POST',
          '/api/v1/leads',
          201,
        );
        expect(created.headers.location).toBe(`/api/v1/leads/${created.body.lead.id}`);
        expectContract(await t.http().post('/api/v1/leads').set('X-API-Key', key()).send({ name: '', email: 'x' }), 'POST', '/api/v1/leads', 400);
        expectContract(
          await t.http().post('/api/v1/leads').set('X-API-Key', key()).set('Content-Type', 'application/json').send('{"name":'),
          'POST',
          '/api/v1/leads',
          400,
        );
        expectContract(
          await t.http().post('/api/v1/leads').set('X-API-Key', key()).set('Content-Type', 'text/plain').send('name=Jane'),
          'POST',
          '/api/v1/leads',
          415,
        );
        expectContract(
          await t
            .http()
            .post('/api/v1/leads')
            .set('X-API-Key', key())
            .send({ name: 'Big', email: 'big@example.com', message: 'x'.repeat(70_000) }),
          'POST',
          '/api/v1/leads',
          413,
        );
      });

      it('PATCH /api/v1/leads/{id}: 200, 204, 409, 404, 400', async () => {
        expectContract(
          await t.http().patch(`/api/v1/leads/${leadId}`).set('X-API-Key', key()).send({ status: 'qualified' }),
          'PATCH',
          '/api/v1/leads/{id}',
          200,
        );
        const writeOnly = await createKey(t, tenant.id, { scopes: ['leads:write'] });
        expectContract(
          await t.http().patch(`/api/v1/leads/${leadId}`).set('X-API-Key', writeOnly.key).send({ status: 'qualified' }),
          'PATCH',
          '/api/v1/leads/{id}',
          204,
        );
        expectContract(
          await t.http().patch(`/api/v1/leads/${leadId}`).set('X-API-Key', key()).send({ status: 'contacted' }),
          'PATCH',
          '/api/v1/leads/{id}',
          409,
        );
        expectContract(
          await t.http().patch(`/api/v1/leads/${UUID_ZERO}`).set('X-API-Key', key()).send({ status: 'contacted' }),
          'PATCH',
          '/api/v1/leads/{id}',
          404,
        );
        expectContract(await t.http().patch(`/api/v1/leads/${leadId}`).set('X-API-Key', key()).send({ status: 'won' }), 'PATCH', '/api/v1/leads/{id}', 400);
      });

      it('POST /api/v1/leads/import: 201, 400, 413', async () => {
        const lead = { name: 'Imported', email: 'imported@example.com', botId, tags: ['csv'] };
        expectContract(
          await t
            .http()
            .post('/api/v1/leads/import')
            .set('X-API-Key', key())
            .send({ leads: [lead, { ...lead, email: 'second@example.com' }] }),
          'POST',
          '/api/v1/leads/import',
          201,
        );
        expectContract(
          await t
            .http()
            .post('/api/v1/leads/import')
            .set('X-API-Key', key())
            .send({ leads: [{ ...lead, email: 'x' }] }),
          'POST',
          '/api/v1/leads/import',
          400,
        );
        expectContract(
          await t
            .http()
            .post('/api/v1/leads/import')
            .set('X-API-Key', key())
            .send({ leads: [{ ...lead, message: 'x'.repeat(4_200_000) }] }),
          'POST',
          '/api/v1/leads/import',
          413,
        );
      });

      it('GET /api/v1/leads/export: 200 (CSV), 400', async () => {
        const exported = expectContract(await t.http().get('/api/v1/leads/export?search=imported').set('X-API-Key', key()), 'GET', '/api/v1/leads/export', 200);
        expect(exported.text.split('\r\n')[0]).toMatch(/^id,name,email,/);
        expectContract(await t.http().get('/api/v1/leads/export?limit=5').set('X-API-Key', key()), 'GET', '/api/v1/leads/export', 400);
      });

      it('the settings operations: 200, 400, 404', async () => {
        expectContract(await t.http().get('/api/v1/settings').set('X-API-Key', key()), 'GET', '/api/v1/settings', 200);
        expectContract(await t.http().get('/api/v1/settings?expand=all').set('X-API-Key', key()), 'GET', '/api/v1/settings', 400);
        expectContract(
          await t
            .http()
            .patch('/api/v1/settings')
            .set('X-API-Key', key())
            .send({ timezone: 'Europe/Berlin', leadCapture: { requirePhone: true } }),
          'PATCH',
          '/api/v1/settings',
          200,
        );
        expectContract(await t.http().patch('/api/v1/settings').set('X-API-Key', key()).send({ timezone: 'Mars/Base' }), 'PATCH', '/api/v1/settings', 400);
        expectContract(await t.http().get(`/api/v1/bots/${botId}/settings`).set('X-API-Key', key()), 'GET', '/api/v1/bots/{id}/settings', 200);
        expectContract(await t.http().get(`/api/v1/bots/${UUID_ZERO}/settings`).set('X-API-Key', key()), 'GET', '/api/v1/bots/{id}/settings', 404);
        expectContract(
          await t
            .http()
            .patch(`/api/v1/bots/${botId}/settings`)
            .set('X-API-Key', key())
            .send({ welcomeMessage: null, suggestedQuestions: ['Price?'] }),
          'PATCH',
          '/api/v1/bots/{id}/settings',
          200,
        );
        expectContract(
          await t.http().patch(`/api/v1/bots/${botId}/settings`).set('X-API-Key', key()).send({ isActive: false }),
          'PATCH',
          '/api/v1/bots/{id}/settings',
          400,
        );
        expectContract(
          await t.http().patch(`/api/v1/bots/${UUID_ZERO}/settings`).set('X-API-Key', key()).send({ showSources: false }),
          'PATCH',
          '/api/v1/bots/{id}/settings',
          404,
        );
      });

      it('the widget operations: their successes, 400, 401, 403, 404 and 409', async () => {
        const publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
        const w = (method: 'get' | 'post', path: string) => t.http()[method](`/api/v1/widget${path}`).set('X-API-Key', publicKey);
        expectContract(await w('get', `/bots/${botId}`), 'GET', '/api/v1/widget/bots/{botId}', 200);
        expectContract(await w('get', `/bots/${UUID_ZERO}`), 'GET', '/api/v1/widget/bots/{botId}', 404);
        expectContract(await t.http().get(`/api/v1/widget/bots/${botId}`).set('X-API-Key', key()), 'GET', '/api/v1/widget/bots/{botId}', 403);
        const session = expectContract(await w('post', '/sessions').send({ botId }), 'POST', '/api/v1/widget/sessions', 201).body;
        expectContract(await w('post', '/sessions').send({ botId: 'x' }), 'POST', '/api/v1/widget/sessions', 400);
        const token = session.visitorToken as string;
        const started = expectContract(
          await w('post', '/conversations').set('X-Visitor-Token', token).send({}),
          'POST',
          '/api/v1/widget/conversations',
          201,
        ).body;
        expectContract(await w('post', '/conversations').send({}), 'POST', '/api/v1/widget/conversations', 401);
        expectContract(await w('get', '/conversations').set('X-Visitor-Token', token), 'GET', '/api/v1/widget/conversations', 200);
        expectContract(await w('get', '/conversations'), 'GET', '/api/v1/widget/conversations', 401);
        const id = started.conversation.id as string;
        expectContract(await w('get', `/conversations/${id}/messages`).set('X-Visitor-Token', token), 'GET', '/api/v1/widget/conversations/{id}/messages', 200);
        expectContract(
          await w('get', `/conversations/${UUID_ZERO}/messages`).set('X-Visitor-Token', token),
          'GET',
          '/api/v1/widget/conversations/{id}/messages',
          404,
        );
        expectContract(
          await w('post', `/conversations/${id}/messages`).set('X-Visitor-Token', token).send({ content: 'What does it cost?' }),
          'POST',
          '/api/v1/widget/conversations/{id}/messages',
          201,
        );
        expectContract(
          await w('post', `/conversations/${id}/messages`).set('X-Visitor-Token', token).send({ content: '' }),
          'POST',
          '/api/v1/widget/conversations/{id}/messages',
          400,
        );
        expectContract(
          await w('post', `/conversations/${id}/lead`)
            .set('X-Visitor-Token', token)
            .send({ name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme' }),
          'POST',
          '/api/v1/widget/conversations/{id}/lead',
          201,
        );
        expectContract(
          await w('post', `/conversations/${id}/lead`)
            .set('X-Visitor-Token', token)
            .send({ name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme' }),
          'POST',
          '/api/v1/widget/conversations/{id}/lead',
          409,
        );
        expectContract(
          await w('post', `/conversations/${id}/end`).set('X-Visitor-Token', token).send({}),
          'POST',
          '/api/v1/widget/conversations/{id}/end',
          200,
        );
        expectContract(
          await w('post', `/conversations/${UUID_ZERO}/end`).set('X-Visitor-Token', token).send({}),
          'POST',
          '/api/v1/widget/conversations/{id}/end',
          404,
        );
      });

      it('the webhook operations: their successes, 400, 404 and 403 PLAN_LIMIT_REACHED', async () => {
        const http = () => t.http();
        const created = expectContract(
          await http()
            .post('/api/v1/webhooks')
            .set('X-API-Key', key())
            .send({ url: 'https://hooks.example.com/in', events: ['*'] }),
          'POST',
          '/api/v1/webhooks',
          201,
        );
        const id = created.body.webhook.id as string;
        expectContract(
          await http()
            .post('/api/v1/webhooks')
            .set('X-API-Key', key())
            .send({ url: 'http://hooks.example.com/in', events: ['*'] }),
          'POST',
          '/api/v1/webhooks',
          400,
        );
        expectContract(await http().get('/api/v1/webhooks').set('X-API-Key', key()), 'GET', '/api/v1/webhooks', 200);
        expectContract(await http().get('/api/v1/webhooks?limit=1').set('X-API-Key', key()), 'GET', '/api/v1/webhooks', 400);
        expectContract(await http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', key()), 'GET', '/api/v1/webhooks/{id}', 200);
        expectContract(await http().get(`/api/v1/webhooks/${UUID_ZERO}`).set('X-API-Key', key()), 'GET', '/api/v1/webhooks/{id}', 404);
        expectContract(await http().patch(`/api/v1/webhooks/${id}`).set('X-API-Key', key()).send({ enabled: false }), 'PATCH', '/api/v1/webhooks/{id}', 200);
        expectContract(await http().patch(`/api/v1/webhooks/${id}`).set('X-API-Key', key()).send({ enabled: 'no' }), 'PATCH', '/api/v1/webhooks/{id}', 400);
        expectContract(await http().post(`/api/v1/webhooks/${id}/rotate-secret`).set('X-API-Key', key()), 'POST', '/api/v1/webhooks/{id}/rotate-secret', 200);
        expectContract(
          await http().post(`/api/v1/webhooks/${UUID_ZERO}/rotate-secret`).set('X-API-Key', key()),
          'POST',
          '/api/v1/webhooks/{id}/rotate-secret',
          404,
        );
        const test = expectContract(await http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', key()), 'POST', '/api/v1/webhooks/{id}/test', 202);
        expectContract(await http().post(`/api/v1/webhooks/${UUID_ZERO}/test`).set('X-API-Key', key()), 'POST', '/api/v1/webhooks/{id}/test', 404);
        expectContract(await http().get(`/api/v1/webhooks/${id}/deliveries`).set('X-API-Key', key()), 'GET', '/api/v1/webhooks/{id}/deliveries', 200);
        expectContract(await http().get(`/api/v1/webhooks/${id}/deliveries?status=x`).set('X-API-Key', key()), 'GET', '/api/v1/webhooks/{id}/deliveries', 400);
        const retry = `/api/v1/webhooks/${id}/deliveries/${test.body.delivery.id}/retry`;
        expectContract(await http().post(retry).set('X-API-Key', key()), 'POST', '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', 202);
        expectContract(
          await http().post(`/api/v1/webhooks/${id}/deliveries/${UUID_ZERO}/retry`).set('X-API-Key', key()),
          'POST',
          '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
          404,
        );
        expectContract(await http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', key()), 'DELETE', '/api/v1/webhooks/{id}', 204);
        expectContract(await http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', key()), 'DELETE', '/api/v1/webhooks/{id}', 404);
        for (let i = 0; i < 20; i++)
          await http()
            .post('/api/v1/webhooks')
            .set('X-API-Key', key())
            .send({ url: 'https://hooks.example.com/in', events: ['*'] });
        expectContract(
          await http()
            .post('/api/v1/webhooks')
            .set('X-API-Key', key())
            .send({ url: 'https://hooks.example.com/in', events: ['*'] }),
          'POST',
          '/api/v1/webhooks',
          403,
        );
      });

      it('the deletes and the privacy operations: their successes, 400 and 404', async () => {
        const http = () => t.http();
        const doomedLead = (await createLead(t, key())).id;
        expectContract(await http().delete(`/api/v1/leads/${doomedLead}`).set('X-API-Key', key()), 'DELETE', '/api/v1/leads/{id}', 204);
        expectContract(await http().delete(`/api/v1/leads/${doomedLead}`).set('X-API-Key', key()), 'DELETE', '/api/v1/leads/{id}', 404);
        const doomedConversation = (await recordConversation(t, tenant.id, botId)).id;
        expectContract(await http().delete(`/api/v1/conversations/${doomedConversation}`).set('X-API-Key', key()), 'DELETE', '/api/v1/conversations/{id}', 204);
        expectContract(await http().delete(`/api/v1/conversations/${doomedConversation}`).set('X-API-Key', key()), 'DELETE', '/api/v1/conversations/{id}', 404);
        expectContract(await http().post('/api/v1/privacy/exports').set('X-API-Key', key()).send({ visitorId: 'v-1' }), 'POST', '/api/v1/privacy/exports', 200);
        expectContract(await http().post('/api/v1/privacy/exports').set('X-API-Key', key()).send({}), 'POST', '/api/v1/privacy/exports', 400);
        const erasure = expectContract(
          await http().post('/api/v1/privacy/erasures').set('X-API-Key', key()).send({ email: 'nobody@example.com' }),
          'POST',
          '/api/v1/privacy/erasures',
          202,
        );
        expectContract(await http().post('/api/v1/privacy/erasures').set('X-API-Key', key()).send({ email: 42 }), 'POST', '/api/v1/privacy/erasures', 400);
        expectContract(
          await http().get(`/api/v1/privacy/erasures/${erasure.body.erasure.id}`).set('X-API-Key', key()),
          'GET',
          '/api/v1/privacy/erasures/{id}',
          200,
        );
        expectContract(await http().get(`/api/v1/privacy/erasures/${UUID_ZERO}`).set('X-API-Key', key()), 'GET', '/api/v1/privacy/erasures/{id}', 404);
      });

      it("the handoff operations and the live events (the visitor's and the inbox's): their successes, 400, 404 and 409", async () => {
        const http = () => t.http();
        const conversation = async () => (await recordConversation(t, tenant.id, botId, { status: 'active' })).id;
        const op = (id: string, action: string) => http().post(`/api/v1/conversations/${id}/${action}`).set('X-API-Key', key());
        const first = await conversation();
        expectContract(await op(first, 'handoff').send({}), 'POST', '/api/v1/conversations/{id}/handoff', 200);
        expectContract(await op(UUID_ZERO, 'handoff').send({}), 'POST', '/api/v1/conversations/{id}/handoff', 404);
        expectContract(
          await op(first, 'messages').send({ content: 'Hi, this is Sam.', authorName: 'Sam' }),
          'POST',
          '/api/v1/conversations/{id}/messages',
          201,
        );
        expectContract(await op(first, 'messages').send({ content: '' }), 'POST', '/api/v1/conversations/{id}/messages', 400);
        expectContract(await op(first, 'release').send({}), 'POST', '/api/v1/conversations/{id}/release', 200);
        expectContract(await op(UUID_ZERO, 'release').send({}), 'POST', '/api/v1/conversations/{id}/release', 404);
        expectContract(await op(first, 'end').send({}), 'POST', '/api/v1/conversations/{id}/end', 200);
        expectContract(await op(first, 'handoff').send({}), 'POST', '/api/v1/conversations/{id}/handoff', 409);
        expectContract(await op(UUID_ZERO, 'end').send({}), 'POST', '/api/v1/conversations/{id}/end', 404);

        // Assignment is the dashboard's: a user of the tenant, an owner here.
        const owner = await signUp(t);
        const ownConversation = (await recordConversation(t, owner.tenantId, (await createBot(t, owner.tenantId)).id, { status: 'active' })).id;
        const as = () => asUser(t, owner.cookie, owner.tenantId);
        expectContract(
          await as().put(`/api/v1/conversations/${ownConversation}/assignee`).send({ userId: owner.id }),
          'PUT',
          '/api/v1/conversations/{id}/assignee',
          200,
        );
        expectContract(
          await as().put(`/api/v1/conversations/${ownConversation}/assignee`).send({ userId: 'x' }),
          'PUT',
          '/api/v1/conversations/{id}/assignee',
          400,
        );

        // The visitor's side: a bot with handoff on, a session, a conversation.
        await http()
          .patch(`/api/v1/bots/${botId}/settings`)
          .set('X-API-Key', key())
          .send({ handoff: { enabled: true } })
          .expect(200);
        const publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
        const w = (method: 'get' | 'post', path: string) => http()[method](`/api/v1/widget${path}`).set('X-API-Key', publicKey);
        const token = (await w('post', '/sessions').send({ botId }).expect(201)).body.visitorToken as string;
        const id = (await w('post', '/conversations').set('X-Visitor-Token', token).send({}).expect(201)).body.conversation.id as string;
        expectContract(
          await w('post', `/conversations/${id}/handoff`).set('X-Visitor-Token', token).send({}),
          'POST',
          '/api/v1/widget/conversations/{id}/handoff',
          200,
        );
        expectContract(
          await w('post', `/conversations/${UUID_ZERO}/handoff`).set('X-Visitor-Token', token).send({}),
          'POST',
          '/api/v1/widget/conversations/{id}/handoff',
          404,
        );
        expectContract(
          await w('get', `/conversations/${UUID_ZERO}/events`).set('X-Visitor-Token', token),
          'GET',
          '/api/v1/widget/conversations/{id}/events',
          404,
        );
        expectContract(
          await streamHead(`/api/v1/widget/conversations/${id}/events`, { 'X-API-Key': publicKey, 'X-Visitor-Token': token }),
          'GET',
          '/api/v1/widget/conversations/{id}/events',
          200,
        );

        // The inbox's stream of the same conversation, for the tenant's people and keys.
        expectContract(await streamHead(`/api/v1/conversations/${id}/events`, { 'X-API-Key': key() }), 'GET', '/api/v1/conversations/{id}/events', 200);
        expectContract(await http().get(`/api/v1/conversations/${UUID_ZERO}/events`).set('X-API-Key', key()), 'GET', '/api/v1/conversations/{id}/events', 404);
      });

      it('the API channel operations: their successes (with Location), 400, 404 and 409', async () => {
        const http = () => t.http();
        const opened = expectContract(
          await http()
            .post('/api/v1/conversations')
            .set('X-API-Key', key())
            .send({ botId, externalId: 'openapi-user', visitor: { name: 'Ada' } }),
          'POST',
          '/api/v1/conversations',
          201,
        );
        expect(opened.headers.location).toBe(`/api/v1/conversations/${opened.body.conversation.id}`);
        expectContract(await http().post('/api/v1/conversations').set('X-API-Key', key()).send({ botId: UUID_ZERO }), 'POST', '/api/v1/conversations', 400);
        const idle = (await createBot(t, tenant.id, { isActive: false })).id;
        expectContract(await http().post('/api/v1/conversations').set('X-API-Key', key()).send({ botId: idle }), 'POST', '/api/v1/conversations', 409);
        const path = '/api/v1/conversations/{id}/visitor-messages';
        const id = opened.body.conversation.id as string;
        const send = (conversation: string, content: string) =>
          http().post(`/api/v1/conversations/${conversation}/visitor-messages`).set('X-API-Key', key()).send({ content });
        expectContract(await send(id, 'What does it cost?'), 'POST', path, 201);
        expectContract(await send(id, ''), 'POST', path, 400);
        expectContract(await send(UUID_ZERO, 'Hello?'), 'POST', path, 404);
        await http().post(`/api/v1/conversations/${id}/end`).set('X-API-Key', key()).send({}).expect(200);
        expectContract(await send(id, 'Hello?'), 'POST', path, 409);
      });

      /** A stream never ends by itself: its head is checked, then the connection is closed. */
      const streamHead = async (path: string, headers: Record<string, string>): Promise<Response> => {
        const server = t.app.getHttpServer() as Server;
        if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const { port } = server.address() as AddressInfo;
        return new Promise<Response>((resolve, reject) => {
          const request = httpGet({ host: '127.0.0.1', port, path, headers: { ...headers, Accept: 'text/event-stream' } }, (answer: IncomingMessage) => {
            request.destroy();
            resolve({ status: answer.statusCode, headers: answer.headers, text: '', body: {} } as unknown as Response);
          });
          request.on('error', reject);
        });
      };

      it('the knowledge document operations: their successes, 400, 404 and 413', async () => {
        const http = () => t.http();
        const list = '/api/v1/bots/{id}/documents';
        const one = '/api/v1/bots/{id}/documents/{docId}';
        const created = expectContract(
          await http().post(`/api/v1/bots/${botId}/documents`).set('X-API-Key', key()).send({ title: 'Returns', content: 'Returns are free.' }),
          'POST',
          list,
          201,
        );
        const id = created.body.document.id as string;
        expectContract(await http().post(`/api/v1/bots/${botId}/documents`).set('X-API-Key', key()).send({ title: '', content: 'x' }), 'POST', list, 400);
        expectContract(await http().post(`/api/v1/bots/${UUID_ZERO}/documents`).set('X-API-Key', key()).send({ title: 'x', content: 'y' }), 'POST', list, 404);
        expectContract(
          await http()
            .post(`/api/v1/bots/${botId}/documents`)
            .set('X-API-Key', key())
            .send({ title: 'x', content: 'y'.repeat(1024 * 1024) }),
          'POST',
          list,
          413,
        );
        expectContract(await http().get(`/api/v1/bots/${botId}/documents?limit=1`).set('X-API-Key', key()), 'GET', list, 200);
        expectContract(await http().get(`/api/v1/bots/${botId}/documents?limit=0`).set('X-API-Key', key()), 'GET', list, 400);
        expectContract(await http().get(`/api/v1/bots/${UUID_ZERO}/documents`).set('X-API-Key', key()), 'GET', list, 404);
        expectContract(await http().get(`/api/v1/bots/${botId}/documents/${id}`).set('X-API-Key', key()), 'GET', one, 200);
        expectContract(await http().get(`/api/v1/bots/${botId}/documents/${UUID_ZERO}`).set('X-API-Key', key()), 'GET', one, 404);
        expectContract(
          await http().patch(`/api/v1/bots/${botId}/documents/${id}`).set('X-API-Key', key()).send({ content: 'Returns are free for 30 days.' }),
          'PATCH',
          one,
          200,
        );
        expectContract(await http().patch(`/api/v1/bots/${botId}/documents/${id}`).set('X-API-Key', key()).send({ title: null }), 'PATCH', one, 400);
        expectContract(await http().patch(`/api/v1/bots/${botId}/documents/${UUID_ZERO}`).set('X-API-Key', key()).send({ title: 'x' }), 'PATCH', one, 404);
        expectContract(await http().delete(`/api/v1/bots/${botId}/documents/${id}`).set('X-API-Key', key()), 'DELETE', one, 204);
        expectContract(await http().delete(`/api/v1/bots/${botId}/documents/${id}`).set('X-API-Key', key()), 'DELETE', one, 404);
      });

      it('the analytics operations: 200, 400', async () => {
        expectContract(await t.http().get(`/api/v1/analytics/overview?botId=${botId}`).set('X-API-Key', key()), 'GET', '/api/v1/analytics/overview', 200);
        expectContract(
          await t.http().get('/api/v1/analytics/overview?from=2026-02-01&to=2026-01-01').set('X-API-Key', key()),
          'GET',
          '/api/v1/analytics/overview',
          400,
        );
        expectContract(
          await t.http().get('/api/v1/analytics/timeseries?metric=messages&interval=week').set('X-API-Key', key()),
          'GET',
          '/api/v1/analytics/timeseries',
          200,
        );
        expectContract(await t.http().get('/api/v1/analytics/timeseries?metric=sessions').set('X-API-Key', key()), 'GET', '/api/v1/analytics/timeseries', 400);
      });

      it('429 with Retry-After and the rate-limit headers once the plan quota is used up', async () => {
        let response: Response | undefined;
        // Up to three tries: an hour boundary between two requests resets the window once.
        for (let i = 0; i < 3 && response?.status !== 429; i++) {
          response = await strict.http().get('/api/v1/bots').set('X-Forwarded-Proto', 'https').set('X-API-Key', key());
        }
        expectContract(response!, 'GET', '/api/v1/bots', 429);
        expect(response!.headers['x-ratelimit-remaining']).toBe('0');
      });

      it('403 HTTPS_REQUIRED over plain HTTP in production', async () => {
        const refused = expectContract(
          await strict.http().get('/api/v1/leads').set('X-Forwarded-Proto', 'http').set('X-API-Key', key()),
          'GET',
          '/api/v1/leads',
          403,
        );
        expect(refused.body.error.code).toBe('HTTPS_REQUIRED');
      });
    });

    describe('/api/v1 for users only', () => {
      let owner: TestUser;
      const as = () => asUser(t, owner.cookie, owner.tenantId);

      beforeAll(async () => {
        owner = await signUp(t);
      });

      it('API keys: GET 200 and 403, POST 201, 400 and 403 PLAN_UPGRADE_REQUIRED, DELETE 204 and 404, activity 200 and 404', async () => {
        const path = '/api/v1/api-keys';
        const created = expectContract(await as().post(path).send({ name: 'Widget', scopes: [], type: 'public' }), 'POST', path, 201);
        expectContract(
          await as()
            .post(path)
            .send({ name: 'Widget', scopes: ['bots:read'], type: 'public' }),
          'POST',
          path,
          400,
        );
        expect(expectContract(await as().post(path).send({ name: 'Secret', scopes: [] }), 'POST', path, 403).body.error.code).toBe('PLAN_UPGRADE_REQUIRED');
        expectContract(await as().get(path), 'GET', path, 200);
        expectContract(await t.http().get(path).set('X-API-Key', key()), 'GET', path, 403);
        const activity = `${path}/{id}/activity`;
        expectContract(await as().get(`${path}/${created.body.apiKey.id}/activity`), 'GET', activity, 200);
        expectContract(await as().get(`${path}/${UUID_ZERO}/activity`), 'GET', activity, 404);
        expectContract(await as().delete(`${path}/${created.body.apiKey.id}`), 'DELETE', `${path}/{id}`, 204);
        expectContract(await as().delete(`${path}/${created.body.apiKey.id}`), 'DELETE', `${path}/{id}`, 404);
      });

      it('bots: POST 201, 400 and 403 PLAN_LIMIT_REACHED, PATCH 200 and 404', async () => {
        const created = expectContract(await as().post('/api/v1/bots').send({ name: 'Helper' }), 'POST', '/api/v1/bots', 201);
        expectContract(await as().post('/api/v1/bots').send({ name: 'x', primaryColor: 'blue' }), 'POST', '/api/v1/bots', 400);
        expect(expectContract(await as().post('/api/v1/bots').send({ name: 'Second' }), 'POST', '/api/v1/bots', 403).body.error.code).toBe(
          'PLAN_LIMIT_REACHED',
        );
        expectContract(await as().patch(`/api/v1/bots/${created.body.bot.id}`).send({ isActive: false }), 'PATCH', '/api/v1/bots/{id}', 200);
        expectContract(await as().patch(`/api/v1/bots/${UUID_ZERO}`).send({ isActive: false }), 'PATCH', '/api/v1/bots/{id}', 404);
      });

      it('identity secret: POST 201 and 403, DELETE 204 and 403', async () => {
        const path = '/api/v1/identity-secret';
        expect(expectContract(await as().post(path), 'POST', path, 201).body.secret).toMatch(/^idsec_[A-Za-z0-9_-]{43}$/);
        expectContract(await t.http().post(path).set('X-API-Key', key()), 'POST', path, 403);
        expectContract(await as().delete(path), 'DELETE', path, 204);
        expectContract(await t.http().delete(path).set('X-API-Key', key()), 'DELETE', path, 403);
      });

      it('GET /api/v1/audit-log: 200, 400, 401', async () => {
        const log = expectContract(await as().get('/api/v1/audit-log?action=bot.created'), 'GET', '/api/v1/audit-log', 200);
        expect(log.body.events).toHaveLength(1);
        expectContract(await as().get('/api/v1/audit-log?actor=root'), 'GET', '/api/v1/audit-log', 400);
        expectContract(await t.http().get('/api/v1/audit-log').set('X-Tenant-Id', owner.tenantId), 'GET', '/api/v1/audit-log', 401);
      });
    });

    describe('/api/v1 tenant, members and invitations', () => {
      let owner: TestUser;
      const as = () => asUser(t, owner.cookie, owner.tenantId);

      beforeAll(async () => {
        owner = await signUp(t);
      });

      it('GET /api/v1/tenant: 200, 400 TENANT_REQUIRED; PATCH: 200, 400', async () => {
        expectContract(await as().get('/api/v1/tenant'), 'GET', '/api/v1/tenant', 200);
        const missing = expectContract(await asUser(t, owner.cookie, null).get('/api/v1/tenant'), 'GET', '/api/v1/tenant', 400);
        expect(missing.body.error.code).toBe('TENANT_REQUIRED');
        expectContract(await as().patch('/api/v1/tenant').send({ name: 'Renamed Co' }), 'PATCH', '/api/v1/tenant', 200);
        expectContract(await as().patch('/api/v1/tenant').send({ name: '' }), 'PATCH', '/api/v1/tenant', 400);
      });

      it('members: GET 200 and 403 NOT_A_MEMBER, PATCH 200, 404 and 409 LAST_OWNER, DELETE 204 and 404', async () => {
        const other = await signUp(t);
        expectContract(await as().get('/api/v1/members'), 'GET', '/api/v1/members', 200);
        const stranger = expectContract(await asUser(t, owner.cookie, other.tenantId).get('/api/v1/members'), 'GET', '/api/v1/members', 403);
        expect(stranger.body.error.code).toBe('NOT_A_MEMBER');
        const agent = await addMember(t, owner, 'agent');
        const one = '/api/v1/members/{userId}';
        expectContract(await as().patch(`/api/v1/members/${agent.id}`).send({ role: 'viewer' }), 'PATCH', one, 200);
        expectContract(await as().patch(`/api/v1/members/${UUID_ZERO}`).send({ role: 'viewer' }), 'PATCH', one, 404);
        const lastOwner = expectContract(await as().patch(`/api/v1/members/${owner.id}`).send({ role: 'admin' }), 'PATCH', one, 409);
        expect(lastOwner.body.error.code).toBe('LAST_OWNER');
        expectContract(await as().patch(`/api/v1/members/${agent.id}`).send({ role: 'root' }), 'PATCH', one, 400);
        expectContract(await as().delete(`/api/v1/members/${agent.id}`), 'DELETE', one, 204);
        expectContract(await as().delete(`/api/v1/members/${agent.id}`), 'DELETE', one, 404);
        expect(expectContract(await as().delete(`/api/v1/members/${owner.id}`), 'DELETE', one, 409).body.error.code).toBe('LAST_OWNER');
      });

      it('invitations: POST 201 and 400, GET 200 and 403 INSUFFICIENT_ROLE, DELETE 204 and 404', async () => {
        const path = '/api/v1/invitations';
        const created = expectContract(
          await as()
            .post(path)
            .send({ email: newEmail('invited'), role: 'agent' }),
          'POST',
          path,
          201,
        );
        expectContract(await as().post(path).send({ email: 'not-an-email', role: 'agent' }), 'POST', path, 400);
        expectContract(await as().get(path), 'GET', path, 200);
        const viewer = await addMember(t, owner, 'viewer');
        const refused = expectContract(await asUser(t, viewer.cookie, owner.tenantId).get(path), 'GET', path, 403);
        expect(refused.body.error.code).toBe('INSUFFICIENT_ROLE');
        expectContract(await as().delete(`${path}/${created.body.invitation.id}`), 'DELETE', `${path}/{id}`, 204);
        expectContract(await as().delete(`${path}/${created.body.invitation.id}`), 'DELETE', `${path}/{id}`, 404);
      });
    });

    describe('/auth/v1', () => {
      const signIn = (path: string) => t.http().post(path).set('Origin', ORIGIN);

      it('POST /auth/v1/signup: 201, 400, 403 CSRF_REJECTED, 409 EMAIL_TAKEN', async () => {
        const body = { email: newEmail('contract'), password: 'correct horse battery', name: 'Ada', tenantName: 'Contract Co' };
        const created = expectContract(await signIn('/auth/v1/signup').send(body), 'POST', '/auth/v1/signup', 201);
        expect(created.headers['set-cookie']).toEqual([expect.stringMatching(/^svc_session=/)]);
        expectContract(await signIn('/auth/v1/signup').send({ ...body, email: newEmail('short'), password: 'short' }), 'POST', '/auth/v1/signup', 400);
        const crossSite = expectContract(
          await t
            .http()
            .post('/auth/v1/signup')
            .set('Origin', 'https://evil.example')
            .send({ ...body, email: newEmail('csrf') }),
          'POST',
          '/auth/v1/signup',
          403,
        );
        expect(crossSite.body.error.code).toBe('CSRF_REJECTED');
        expect(expectContract(await signIn('/auth/v1/signup').send(body), 'POST', '/auth/v1/signup', 409).body.error.code).toBe('EMAIL_TAKEN');
      });

      it('POST /auth/v1/sessions: 201, 400, 401 INVALID_CREDENTIALS', async () => {
        const user = await signUp(t);
        expectContract(await signIn('/auth/v1/sessions').send({ email: user.email, password: user.password }), 'POST', '/auth/v1/sessions', 201);
        expectContract(await signIn('/auth/v1/sessions').send({ email: user.email }), 'POST', '/auth/v1/sessions', 400);
        const wrong = expectContract(
          await signIn('/auth/v1/sessions').send({ email: user.email, password: 'not the password' }),
          'POST',
          '/auth/v1/sessions',
          401,
        );
        expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
      });

      it('GET /auth/v1/me and /auth/v1/sessions: 200, 401 INVALID_SESSION; PATCH /auth/v1/me: 200, 400, 403', async () => {
        const user = await signUp(t);
        const as = asUser(t, user.cookie, null);
        expectContract(await as.get('/auth/v1/me'), 'GET', '/auth/v1/me', 200);
        expect(expectContract(await t.http().get('/auth/v1/me'), 'GET', '/auth/v1/me', 401).body.error.code).toBe('INVALID_SESSION');
        expectContract(await as.get('/auth/v1/sessions'), 'GET', '/auth/v1/sessions', 200);
        expectContract(await t.http().get('/auth/v1/sessions').set('Cookie', 'svc_session=not-a-session'), 'GET', '/auth/v1/sessions', 401);
        expectContract(await as.patch('/auth/v1/me').send({ name: 'Renamed', currentPassword: user.password }), 'PATCH', '/auth/v1/me', 200);
        expectContract(await as.patch('/auth/v1/me').send({ name: 'Renamed' }), 'PATCH', '/auth/v1/me', 400);
        const crossSite = expectContract(
          await t.http().patch('/auth/v1/me').set('Cookie', user.cookie).send({ name: 'X', currentPassword: user.password }),
          'PATCH',
          '/auth/v1/me',
          403,
        );
        expect(crossSite.body.error.code).toBe('CSRF_REJECTED');
      });

      it('DELETE /auth/v1/sessions/{id}: 204, 404; DELETE /auth/v1/sessions/current: 204, 401', async () => {
        const user = await signUp(t);
        const second = await logIn(t, user.email, user.password);
        const as = asUser(t, user.cookie, null);
        const sessions = (await as.get('/auth/v1/sessions').expect(200)).body.sessions as { id: string; current: boolean }[];
        const other = sessions.find((session) => !session.current)!;
        expectContract(await as.delete(`/auth/v1/sessions/${other.id}`), 'DELETE', '/auth/v1/sessions/{id}', 204);
        expectContract(await as.delete(`/auth/v1/sessions/${other.id}`), 'DELETE', '/auth/v1/sessions/{id}', 404);
        expectContract(await as.delete('/auth/v1/sessions/current'), 'DELETE', '/auth/v1/sessions/current', 204);
        expectContract(await as.delete('/auth/v1/sessions/current'), 'DELETE', '/auth/v1/sessions/current', 401);
        expectContract(await asUser(t, second, null).delete('/auth/v1/sessions/current'), 'DELETE', '/auth/v1/sessions/current', 401);
      });

      it('POST /auth/v1/invitations/accept: 201, 400, 410 INVITATION_EXPIRED', async () => {
        const owner = await signUp(t);
        const invited = await asUser(t, owner.cookie, owner.tenantId)
          .post('/api/v1/invitations')
          .send({ email: newEmail('invited'), role: 'agent' })
          .expect(201);
        const token = new URL(invited.body.acceptUrl).searchParams.get('token');
        const path = '/auth/v1/invitations/accept';
        expectContract(await signIn(path).send({ token, name: 'Invited', password: 'short' }), 'POST', path, 400);
        expectContract(await signIn(path).send({ token, name: 'Invited', password: 'invited password 1' }), 'POST', path, 201);
        const used = expectContract(await signIn(path).send({ token, name: 'Invited', password: 'invited password 1' }), 'POST', path, 410);
        expect(used.body.error.code).toBe('INVITATION_EXPIRED');
      });

      it('password resets: request 202 and 400, confirm 204 and 400; the admin link 201, 404 and 401', async () => {
        const user = await signUp(t);
        expectContract(await signIn('/auth/v1/password-resets').send({ email: user.email }), 'POST', '/auth/v1/password-resets', 202);
        expectContract(await signIn('/auth/v1/password-resets').send({ email: 'nobody' }), 'POST', '/auth/v1/password-resets', 400);
        const admin = '/admin/v1/users/{userId}/password-resets';
        const issued = expectContract(await t.admin().post(`/admin/v1/users/${user.id}/password-resets`), 'POST', admin, 201);
        expectContract(await t.admin().post(`/admin/v1/users/${UUID_ZERO}/password-resets`), 'POST', admin, 404);
        expectContract(await t.http().post(`/admin/v1/users/${user.id}/password-resets`), 'POST', admin, 401);
        expectContract(await t.admin().post(`/admin/v1/users/${user.id}/password-resets`).send({ userId: user.id }), 'POST', admin, 400);
        const token = new URL(issued.body.resetUrl).searchParams.get('token');
        const confirm = '/auth/v1/password-resets/confirm';
        expectContract(await signIn(confirm).send({ token, password: 'a brand new password' }), 'POST', confirm, 204);
        expectContract(await signIn(confirm).send({ token, password: 'a brand new password' }), 'POST', confirm, 400);
      });
    });

    describe('/admin/v1', () => {
      let adminTenantId: string;
      let slug: string;

      it('POST /admin/v1/tenants: 201, 409, 400, 401', async () => {
        slug = `oa-${Date.now().toString(36)}`;
        const created = expectContract(
          await t.admin().post('/admin/v1/tenants').send({ name: 'OpenAPI Co', slug, plan: 'free' }),
          'POST',
          '/admin/v1/tenants',
          201,
        );
        adminTenantId = created.body.tenant.id;
        expectContract(await t.admin().post('/admin/v1/tenants').send({ name: 'Again', slug, plan: 'pro' }), 'POST', '/admin/v1/tenants', 409);
        expectContract(await t.admin().post('/admin/v1/tenants').send({ name: 'Bad', slug: 'Bad Slug', plan: 'gold' }), 'POST', '/admin/v1/tenants', 400);
        expectContract(
          await t
            .http()
            .post('/admin/v1/tenants')
            .send({ name: 'No token', slug: `${slug}-x`, plan: 'pro' }),
          'POST',
          '/admin/v1/tenants',
          401,
        );
      });

      it('GET /admin/v1/tenants/{tenantId}: 200, 404', async () => {
        expectContract(await t.admin().get(`/admin/v1/tenants/${adminTenantId}`), 'GET', '/admin/v1/tenants/{tenantId}', 200);
        expectContract(await t.admin().get(`/admin/v1/tenants/${UUID_ZERO}`), 'GET', '/admin/v1/tenants/{tenantId}', 404);
      });

      it('POST /admin/v1/tenants/{tenantId}/api-keys on Free: 403 PLAN_UPGRADE_REQUIRED', async () => {
        const refused = expectContract(
          await t
            .admin()
            .post(`/admin/v1/tenants/${adminTenantId}/api-keys`)
            .send({ name: 'k', scopes: ['bots:read'] }),
          'POST',
          '/admin/v1/tenants/{tenantId}/api-keys',
          403,
        );
        expect(refused.body.error.code).toBe('PLAN_UPGRADE_REQUIRED');
      });

      it('PATCH /admin/v1/tenants/{tenantId}: 200, 400', async () => {
        expectContract(await t.admin().patch(`/admin/v1/tenants/${adminTenantId}`).send({ plan: 'pro' }), 'PATCH', '/admin/v1/tenants/{tenantId}', 200);
        expectContract(await t.admin().patch(`/admin/v1/tenants/${adminTenantId}`).send({ plan: 'gold' }), 'PATCH', '/admin/v1/tenants/{tenantId}', 400);
      });

      it('API keys: POST 201 and 400, GET 200 and 401, DELETE 204 and 404', async () => {
        const path = '/admin/v1/tenants/{tenantId}/api-keys';
        const created = expectContract(
          await t
            .admin()
            .post(`/admin/v1/tenants/${adminTenantId}/api-keys`)
            .send({ name: 'CRM', scopes: ['leads:read'], expiresAt: '2099-01-01T00:00:00Z' }),
          'POST',
          path,
          201,
        );
        expectContract(
          await t
            .admin()
            .post(`/admin/v1/tenants/${adminTenantId}/api-keys`)
            .send({ name: 'CRM', scopes: ['everything'] }),
          'POST',
          path,
          400,
        );
        expectContract(await t.admin().get(`/admin/v1/tenants/${adminTenantId}/api-keys`), 'GET', path, 200);
        expectContract(await t.http().get(`/admin/v1/tenants/${adminTenantId}/api-keys`).set('Authorization', 'Bearer wrong-token'), 'GET', path, 401);
        const one = `${path}/{keyId}`;
        expectContract(await t.admin().delete(`/admin/v1/tenants/${adminTenantId}/api-keys/${created.body.apiKey.id}`), 'DELETE', one, 204);
        expectContract(await t.admin().delete(`/admin/v1/tenants/${adminTenantId}/api-keys/${created.body.apiKey.id}`), 'DELETE', one, 404);
      });

      it('bots: POST 201, 400 and 403 PLAN_LIMIT_REACHED, PATCH 200 and 404', async () => {
        const path = '/admin/v1/tenants/{tenantId}/bots';
        const created = expectContract(
          await t.admin().post(`/admin/v1/tenants/${adminTenantId}/bots`).send({ name: 'Helper', avatarUrl: null }),
          'POST',
          path,
          201,
        );
        expectContract(await t.admin().post(`/admin/v1/tenants/${adminTenantId}/bots`).send({ name: 'Helper', primaryColor: 'blue' }), 'POST', path, 400);
        for (let i = 1; i < 5; i++) await createBot(t, adminTenantId);
        const refused = expectContract(await t.admin().post(`/admin/v1/tenants/${adminTenantId}/bots`).send({ name: 'Sixth' }), 'POST', path, 403);
        expect(refused.body.error.code).toBe('PLAN_LIMIT_REACHED');
        expectContract(
          await t.admin().patch(`/admin/v1/tenants/${adminTenantId}/bots/${created.body.bot.id}`).send({ isActive: false }),
          'PATCH',
          `${path}/{botId}`,
          200,
        );
        expectContract(
          await t.admin().patch(`/admin/v1/tenants/${adminTenantId}/bots/${UUID_ZERO}`).send({ isActive: false }),
          'PATCH',
          `${path}/{botId}`,
          404,
        );
      });

      it('knowledge documents and recorded conversations: 201, 404, 400', async () => {
        const documents = '/admin/v1/tenants/{tenantId}/bots/{botId}/documents';
        expectContract(
          await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`).send({ title: 'Pricing', content: 'Pro is 49 a month.' }),
          'POST',
          documents,
          201,
        );
        expectContract(
          await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${UUID_ZERO}/documents`).send({ title: 'Pricing', content: 'x' }),
          'POST',
          documents,
          404,
        );
        const conversations = '/admin/v1/tenants/{tenantId}/bots/{botId}/conversations';
        expectContract(
          await t
            .admin()
            .post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/conversations`)
            .send({ channel: 'api', messages: [{ role: 'agent', content: 'Hello' }] }),
          'POST',
          conversations,
          201,
        );
        expectContract(
          await t
            .admin()
            .post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/conversations`)
            .send({ messages: [{ role: 'robot', content: '' }] }),
          'POST',
          conversations,
          400,
        );
      });

      it('GET /admin/v1/tenants/{tenantId}/audit-log: 200, 400', async () => {
        const log = expectContract(await t.admin().get(`/admin/v1/tenants/${adminTenantId}/audit-log`), 'GET', '/admin/v1/tenants/{tenantId}/audit-log', 200);
        expect(log.body.events.length).toBeGreaterThan(3);
        expectContract(await t.admin().get(`/admin/v1/tenants/${adminTenantId}/audit-log?limit=abc`), 'GET', '/admin/v1/tenants/{tenantId}/audit-log', 400);
      });

      it('403 HTTPS_REQUIRED over plain HTTP in production', async () => {
        const refused = expectContract(
          await strict.admin().get(`/admin/v1/tenants/${adminTenantId}`).set('X-Forwarded-Proto', 'http'),
          'GET',
          '/admin/v1/tenants/{tenantId}',
          403,
        );
        expect(refused.body.error.code).toBe('HTTPS_REQUIRED');
      });
    });

    describe('/health', () => {
      it('GET /health/live and /health/ready: 200, over plain HTTP even in production', async () => {
        expectContract(await strict.http().get('/health/live').set('X-Forwarded-Proto', 'http'), 'GET', '/health/live', 200);
        const ready = expectContract(await strict.http().get('/health/ready').set('X-Forwarded-Proto', 'http'), 'GET', '/health/ready', 200);
        expect(ready.body.details.database).toEqual(expect.objectContaining({ status: 'up' }));
      });
    });
  });

  it("exercised every operation's success answer and at least one of its errors", () => {
    const missing = contract.operations().flatMap((route) => {
      const [method, path] = route.split(' ');
      const statuses = Object.keys(contract.operation(method, path).responses);
      const success = statuses.filter((status) => status.startsWith('2'));
      const errors = statuses.filter((status) => /^[45]/.test(status) && !['500', '503'].includes(status));
      return [
        ...success.filter((status) => !exercised.has(`${route} ${status}`)).map((status) => `${route} ${status}`),
        ...(errors.length && !errors.some((status) => exercised.has(`${route} ${status}`)) ? [`${route} (no error answer)`] : []),
      ];
    });
    expect(missing).toEqual([]);
  });
});

/** A signed-in user's request: the session cookie and X-Tenant-Id together. */
const USER = { SessionCookie: [], TenantId: [] };

function securityOf(rule: AccessRule | undefined): Record<string, string[]>[] | undefined {
  // A key, or a user whose role holds the scopes.
  if (rule?.kind === 'apiKey') return [{ ApiKeyAuth: [...rule.scopes] }, USER];
  if (rule?.kind === 'tenantUser') return [USER];
  if (rule?.kind === 'session') return [{ SessionCookie: [] }];
  if (rule?.kind === 'signIn') return [];
  // A public key: no scope (a visitor's token is a documented header, not a security scheme).
  if (rule?.kind === 'widget' || rule?.kind === 'visitor') return [{ ApiKeyAuth: [] }];
  if (rule?.kind === 'admin') return [{ AdminBearerAuth: [] }];
  if (rule?.kind === 'public') return [];
  return undefined;
}
