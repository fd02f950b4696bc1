/**
 * Property-based fuzzing of every endpoint over real HTTP (fast-check).
 *
 * Each property sends one generated request at a time through a raw `node:http` client (no
 * library rewrites the path, headers or body) to the app listening on loopback, and checks the
 * answer against invariants that hold for every input:
 * - an answer arrives within ANSWER_TIMEOUT_MS (a hang fails), the connection is not cut;
 * - the status is one of 200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 429 (never 500; and
 *   304 without a body only for `If-None-Match: *` on a GET, as RFC 9110 13.1.2 has it);
 * - JSON content type (no body on 204 and HEAD), X-Request-Id (a well-formed incoming id echoed,
 *   otherwise a fresh UUID), `nosniff`, `Cache-Control: no-store`;
 * - errors are exactly the envelope `{ error: { code, message, status, requestId, details? } }`
 *   with a code that belongs to the status, `details` exactly on VALIDATION_ERROR, the request id
 *   of the header, and no submitted value echoed in a message; answers of documented operations
 *   match the committed OpenAPI document (status, headers, body schema);
 * - oracles derived from the input where the contract fixes the answer: invalid keys are 401,
 *   a Free tenant's key 403 PLAN_UPGRADE_REQUIRED, a missing scope 403 INSUFFICIENT_SCOPE, a
 *   wrong admin token 401 UNAUTHORIZED; unknown or repeated query parameters and unknown body
 *   fields 400; a non-JSON body 415; 413 exactly when the body is over 64 KiB; lead status moves
 *   follow the machine (200 only for an allowed move or a no-op, 409 only for a forbidden one);
 * - nothing changes on an error answer (leads, bots, keys, documents, conversations and their
 *   status and assignee, messages, audit events, privacy erasures and tenant rows of every tenant
 *   the suite owns are compared before and after), and at the end each tenant holds exactly its
 *   initial leads plus one per 201 that created one, less one per 204 that deleted one;
 * - a query string or body field a handler does not declare is 400 on every route but the public ones.
 *
 * - Idempotency-Key on POST /api/v1/leads: a malformed key never creates a lead; a key that got a
 *   201 gets exactly that answer again (Idempotent-Replayed: true) or 409 IDEMPOTENCY_KEY_REUSED,
 *   never a second lead; only the first answer counts in the lead accounting.
 *
 * Replay: the seed is fixed (FUZZ_SEED, printed with every failure); FUZZ_RUNS sets the runs per
 * property (default below), FUZZ_SHRINK=1 shrinks a counterexample, FUZZ_SUMMARY=1 prints the
 * number of requests, statuses and time, FUZZ_STRICT=1 tolerates none of the known bugs below.
 * The database state carries over between properties, so replay by running the whole file.
 *
 * Not sent: raw bytes above 0x7F in the request target and malformed HTTP framing; Node's HTTP
 * parser answers those itself (a bare 400 without the envelope) before the app sees them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import { brotliCompressSync, crc32, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Response } from 'supertest';
import typeIs from 'type-is';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { addMember, asUser, logIn, newEmail, ORIGIN, signUp, type TestUser } from '../support/users';
import { createBot, createKey, createLead, createTenant, recordConversation } from '../support/factories';
import { controllerRoutes } from '../support/controller-routes';
import { OpenApiContract, servedRoutes, toOpenApiRoute } from '../support/openapi-contract';
import { SUBSCRIBABLE_EVENTS, WEBHOOK_EVENT_TYPES } from '../../src/events/event-catalogue';
import { LEAD_MOVES as MOVES, LEAD_STATUSES as STATUSES, type LeadStatusName as LeadStatus } from '../support/lead-status-machine';

const RUNS = positiveInt(process.env.FUZZ_RUNS, 800);
const SEED = Number.parseInt(process.env.FUZZ_SEED ?? '20261121', 10);
const SHRINK = process.env.FUZZ_SHRINK === '1';
const STRICT = process.env.FUZZ_STRICT === '1';
const SUMMARY = process.env.FUZZ_SUMMARY === '1';
const ANSWER_TIMEOUT_MS = 5_000;
const BODY_LIMIT = 64 * 1024;
/** The knowledge document routes take up to 1 MiB (200,000 characters of any script). */
const DOCUMENT_BODY_LIMIT = 1024 * 1024;
const PROPERTY_TIMEOUT_MS = Math.max(120_000, RUNS * 400);

function positiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

// ---------------------------------------------------------------------------------------------
// Contract tables
// ---------------------------------------------------------------------------------------------

const ALLOWED_STATUSES = new Set([200, 201, 202, 204, 400, 401, 403, 404, 409, 410, 413, 415, 429]);
const CODES_BY_STATUS: Record<number, string[]> = {
  400: ['VALIDATION_ERROR', 'TENANT_REQUIRED'],
  401: ['INVALID_API_KEY', 'UNAUTHORIZED', 'INVALID_VISITOR_TOKEN', 'INVALID_SESSION', 'INVALID_CREDENTIALS'],
  403: [
    'HTTPS_REQUIRED',
    'PLAN_UPGRADE_REQUIRED',
    'INSUFFICIENT_SCOPE',
    'PLAN_LIMIT_REACHED',
    'ORIGIN_NOT_ALLOWED',
    'CSRF_REJECTED',
    'NOT_A_MEMBER',
    'INSUFFICIENT_ROLE',
    'SIGNUP_CLOSED',
  ],
  404: ['NOT_FOUND'],
  409: [
    'INVALID_STATUS_TRANSITION',
    'CONFLICT',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
    'BOT_INACTIVE',
    'CONVERSATION_ENDED',
    'LEAD_CAPTURE_DISABLED',
    'LEAD_ALREADY_CAPTURED',
    'DELIVERY_IN_FLIGHT',
    'ALREADY_ASSIGNED',
    'HANDOFF_DISABLED',
    'EMAIL_TAKEN',
    'LAST_OWNER',
  ],
  410: ['INVITATION_EXPIRED', 'IDEMPOTENCY_RECORD_ERASED'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  429: ['RATE_LIMIT_EXCEEDED', 'MESSAGE_LIMIT_REACHED'],
  500: ['INTERNAL_ERROR'],
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SCOPES = [
  'bots:read',
  'conversations:read',
  'leads:read',
  'leads:write',
  'webhooks:manage',
  'analytics:read',
  'settings:read',
  'settings:write',
  'knowledge:write',
  'conversations:write',
  'privacy:manage',
];
/** The scopes a role holds (src/accounts/roles.ts): owners and admins all, agents these, viewers the reads. */
const AGENT_SCOPES = ['bots:read', 'conversations:read', 'conversations:write', 'leads:read', 'leads:write', 'analytics:read', 'settings:read'];
const roleHolds = (role: 'owner' | 'admin' | 'agent' | 'viewer', scope: string) =>
  role === 'owner' || role === 'admin' || (role === 'agent' ? AGENT_SCOPES.includes(scope) : scope.endsWith(':read'));
const PLANS = ['free', 'pro', 'business', 'enterprise'];
const ROLES = ['owner', 'admin', 'agent', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const VOCABULARY = new Set<string>([
  ...SCOPES,
  ...PLANS,
  ...ROLES,
  'new',
  'contacted',
  'qualified',
  'unqualified',
  'converted',
  'active',
  'ended',
  'handed_off',
  'widget',
  'api',
  'import',
  'user',
  'assistant',
  'agent',
  'secret',
  'public',
  ...WEBHOOK_EVENT_TYPES,
  'pending',
  'succeeded',
  'failed',
  'conversations',
]);

interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template. */
  template: string;
  /** /api/v1: the scope the route needs (null: any valid key, public ones included). */
  scope?: string | null;
  admin?: boolean;
  /**
   * Query parameters the route's handler reads (`@Query()`): every other one is a 400. Undefined:
   * the handler reads no query, so any query string is a 400 (UndeclaredInputGuard).
   */
  query?: string[];
  /** Fixture names for each `{param}` of the template. */
  ids?: string[][];
  body?: BodyShape;
  /** A widget route: public keys only, no plan check (secret keys are 403 INSUFFICIENT_SCOPE). */
  widget?: boolean;
  /** The route's body limit when it is not the contract's 64 KiB (the lead import). */
  bodyLimit?: number;
  /** The success body's media type when it is not JSON (the lead export). */
  produces?: string;
  /**
   * A route of the dashboard's users: `tenant` (users-only /api/v1: the session cookie, Origin and
   * X-Tenant-Id; `manager`: owners and admins only), `session` (/auth/v1 for a signed-in user) or
   * `signIn` (/auth/v1 before a session: Origin only).
   */
  user?: { kind: 'tenant'; role: 'member' | 'manager'; scopes?: string[] } | { kind: 'session' } | { kind: 'signIn' };
}

interface BodyShape {
  required: Record<string, fc.Arbitrary<string>>;
  optional: Record<string, fc.Arbitrary<string>>;
  /** Bodies the contract accepts, so that the success paths are reached often. */
  valid?: fc.Arbitrary<string>;
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Percent-encodes every UTF-8 byte outside the unreserved set. */
function enc(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const SPECIAL_TEXT = [
  '\u0000',
  'a\u0000b',
  '\u202Eevil\u202C',
  '\u200B',
  '\u200F',
  '\u061C',
  'שלום',
  'مرحبا',
  '\uFEFF',
  '😀',
  '👩‍👩‍👧',
  'e\u0301',
  'İ',
  'ß',
  'ﬃ',
  '\uFFFF',
  '\u0085',
  '\u2028',
  '%',
  '_',
  '\\',
  "'",
  '"',
  '--',
  "' OR 1=1 --",
  '\r\n',
  '\t',
  ' ',
  '  padded  ',
  'null',
  'undefined',
  '<script>',
  '${x}',
  '{{x}}',
  '../..',
  '%00',
  '%zz',
];
const weirdText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_TEXT) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\u202E', '\u200B', '\u200F', '\uFEFF', '😀', 'a', 'İ', '%', '_', '\\', '"', ' ', '\n', '\u0301'),
      maxLength: 8,
    }),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 24 }) },
);
/** Texts that a UTF-8 encoder cannot produce: lone surrogates (JSON escapes them). */
const loneSurrogates = fc.constantFrom('\uD800', 'a\uDFFFb', '\uDBFF', '\uDC00x');
const longText = fc.tuple(fc.constantFrom('a', 'é', '😀', ' ', '\u0000'), fc.integer({ min: 150, max: 6_000 })).map(([char, count]) => char.repeat(count));

// Query strings: raw, already encoded.
const QUERY_NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '20',
  '100',
  '101',
  '2147483647',
  '2147483648',
  '-2147483648',
  '99999999999999999999',
  '1e400',
  '-1e400',
  '1e-400',
  '1e2',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '1_000',
  '%201',
  '1%20',
  '%2B1',
  '00001',
  '',
  '%00',
  '1%00',
  '%D9%A3',
];
const QUERY_DATES = [
  '2026-01-01',
  '2026-02-30',
  '2026-13-01',
  '0000-01-01',
  '9999-12-31',
  '%2B275760-09-13',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.123456789Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T00:00:00%2B99:99',
  '2026-01-01T00:00:00-23:59',
  '2026-01-01T00:00',
  '20260101',
  '2026-W01-1',
  '1e400',
  'yesterday',
  '2026-01-01T00:00:00%2B01:00',
];
const QUERY_RAW = [
  '%ED%A0%80',
  '%ED%B0%80',
  '%F0%9F',
  '%C0%AF',
  '%zz',
  '%',
  '%%',
  '%E2%80%AE',
  '%E2%80%8B',
  '%EF%BB%BF',
  '%F0%9F%92%A9',
  '+',
  '%2B',
  '%25',
  '%5C',
  '_',
  '%22',
  '%27',
  '%00',
  '%0A',
  '%FF',
];
const QUERY_KNOWN = ['limit', 'offset', 'botId', 'status', 'from', 'to', 'search', 'sort'];
const QUERY_EXOTIC = [
  'a[]',
  'a[b]',
  'limit[]',
  'offset[0]',
  'search[a]',
  'botId[]',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'x-api-key',
  'X-API-Key',
  'apiKey',
  'api_key',
  '',
  'limit%20',
  'LIMIT',
  '%6Cimit',
  'limit%00',
];
const queryValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...QUERY_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...QUERY_DATES) },
  { weight: 1, arbitrary: fc.constantFrom('active', 'ended', 'handed_off', 'ACTIVE', 'new', 'newest', 'waiting', 'Waiting') },
  { weight: 1, arbitrary: fc.constantFrom('conversations', 'messages', 'leads', 'visitors', 'day', 'week', 'month') },
  { weight: 2, arbitrary: fc.oneof(fc.constantFrom('{{own.bot}}', '{{foreign.bot}}', '{{own.lead}}', '{{own.bot:upper}}', '{{key.own}}'), fc.uuid()) },
  { weight: 3, arbitrary: weirdText.map(enc) },
  { weight: 2, arbitrary: fc.constantFrom(...QUERY_RAW) },
  { weight: 1, arbitrary: fc.array(fc.oneof(weirdText.map(enc), fc.constantFrom(...QUERY_RAW)), { maxLength: 4 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.integer({ min: 190, max: 2_000 }).map((count) => 'a'.repeat(count)) },
);
const queryKey = (known: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...(known.length ? known : QUERY_KNOWN)) },
    { weight: 2, arbitrary: fc.constantFrom(...QUERY_KNOWN) },
    { weight: 2, arbitrary: fc.constantFrom(...QUERY_EXOTIC) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).map(enc) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,8}$/) },
  );
const queryString = (known: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.array(fc.tuple(queryKey(known), fc.option(queryValue, { nil: undefined, freq: 8 })), { minLength: 1, maxLength: 6 }),
          fc.constantFrom('&', '&', '&', ';', '&&'),
          fc.boolean(),
        )
        .map(
          ([pairs, separator, trailing]) =>
            `?${pairs.map(([key, value]) => (value === undefined ? key : `${key}=${value}`)).join(separator)}${trailing ? '&' : ''}`,
        ),
    },
  );

// JSON bodies as text, so that duplicate keys, huge numbers and lone surrogates survive.
const jsonNumber = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1e400',
    '-1e400',
    '99999999999999999999',
    '1.5',
    '-1',
    '1E2',
    '1e-400',
    '0.0000001',
    '123456789012345678901234567890',
    '2147483648',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
);
const jsonString = fc.oneof(
  { weight: 4, arbitrary: weirdText },
  { weight: 1, arbitrary: loneSurrogates },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: fc.emailAddress() },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{{own.bot}}', '{{foreign.bot}}', '{{own.lead}}', '{{sandbox.bot}}', ...STATUSES, ...PLANS, ...SCOPES, '2026-01-01T00:00:00Z'),
  },
);
const { jsonValue } = fc.letrec<{ jsonValue: string; leaf: string; array: string; object: string }>((tie) => ({
  jsonValue: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(
    jsonString.map((text) => JSON.stringify(text)),
    jsonNumber,
    fc.constantFrom('true', 'false', 'null'),
  ),
  array: fc.array(tie('jsonValue'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(jsonString, tie('jsonValue')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
}));
/** `undefined` most of the time, `arbitrary` in `percent` per cent of the draws. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary });
}
const str = (arbitrary: fc.Arbitrary<string>) => arbitrary.map((text) => JSON.stringify(text));
const maybe = (valid: fc.Arbitrary<string>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: jsonValue });
const EXOTIC_FIELDS = ['__proto__', 'constructor', 'toString', 'extra', '', ' name', 'Name', 'id', 'tenantId', 'source', 'status', 'createdAt'];

function objectBody(shape: BodyShape): fc.Arbitrary<string> {
  const field = (arbitrary: fc.Arbitrary<string>) => maybe(arbitrary);
  const required = Object.entries(shape.required);
  const optional = Object.entries(shape.optional);
  return fc
    .tuple(
      fc.tuple(
        ...required.map(([name, arbitrary]) =>
          fc.option(
            field(arbitrary).map((value) => [name, value] as const),
            { nil: undefined, freq: 12 },
          ),
        ),
      ),
      fc.subarray(optional).chain((chosen) => fc.tuple(...chosen.map(([name, arbitrary]) => field(arbitrary).map((value) => [name, value] as const)))),
      sometimes(fc.array(fc.tuple(fc.oneof(fc.constantFrom(...EXOTIC_FIELDS), weirdText), jsonValue), { minLength: 1, maxLength: 2 }), 12),
      // A repeated field (none to repeat in an empty body).
      required.length + optional.length
        ? sometimes(
            fc.constantFrom(...required, ...optional).chain(([name, arbitrary]) => field(arbitrary).map((value) => [name, value] as const)),
            8,
          )
        : fc.constant(undefined),
    )
    .map(([req, opt, extra, duplicate]) => {
      const entries: (readonly [string, string])[] = [
        ...req.filter((entry) => entry !== undefined),
        ...opt,
        ...(extra ?? []),
        ...(duplicate ? [duplicate] : []),
      ];
      return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
    });
}

type BodySpec =
  | { kind: 'json'; text: string }
  | { kind: 'bytes'; hex: string }
  | { kind: 'sized'; target: number; field: string; char: string }
  | { kind: 'deep'; depth: number; nest: 'array' | 'object'; field: string };

function bodySpec(shape: BodyShape | undefined, sizedField: string): fc.Arbitrary<BodySpec | undefined> {
  const object = shape ? objectBody(shape) : jsonValue;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: shape?.valid ? 12 : 0, arbitrary: (shape?.valid ?? jsonValue).map((text) => ({ kind: 'json' as const, text })) },
    { weight: 14, arbitrary: object.map((text) => ({ kind: 'json' as const, text })) },
    { weight: 2, arbitrary: jsonValue.map((text) => ({ kind: 'json' as const, text })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.tuple(object, fc.nat()).map(([text, cut]) => text.slice(0, cut % Math.max(1, text.length))),
          fc.constantFrom(
            '',
            ' ',
            'null',
            'true',
            '0',
            '"x"',
            '[]',
            '[{}]',
            '{}',
            '{"a":1}{"b":2}',
            '{"a":1,}',
            "{'a':1}",
            '\uFEFF{}',
            '{"a":NaN}',
            '{"a":undefined}',
            '{"a":0x10}',
            '{"a":1e400}',
            '{"a":"\\ud800"}',
            '{"a":"\\u0000"}',
          ),
          fc.string({ unit: 'binary', maxLength: 64 }),
          object.map((text) => `${text}trailing`),
        )
        .map((text) => ({ kind: 'json' as const, text })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 128 }).map((bytes) => ({ kind: 'bytes' as const, hex: Buffer.from(bytes).toString('hex') })) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('sized' as const),
        target: fc.oneof(
          fc.integer({ min: BODY_LIMIT - 12, max: BODY_LIMIT + 12 }),
          fc.constantFrom(BODY_LIMIT - 1, BODY_LIMIT, BODY_LIMIT + 1, 200_000, 1_048_576),
        ),
        field: fc.constant(sizedField),
        char: fc.constantFrom('a', 'é', '€', '😀'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('deep' as const),
        depth: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1_500, max: 12_000 })),
        nest: fc.constantFrom('array' as const, 'object' as const),
        field: fc.constantFrom(sizedField, 'unknownField', 'tags'),
      }),
    },
  );
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset="utf-8"',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset=ascii',
  'application/json; charset=bogus',
  'application/json; foo=bar',
  'application/json;;',
  'application/vnd.api+json',
  'application/problem+json',
  'application/json-patch+json',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  'application/*',
  '',
  'json',
  ';;',
  'application/json, text/plain',
  'application/jsonx',
  ' application/json ',
];
const contentType = fc.option(
  fc.oneof(
    { weight: 16, arbitrary: fc.constant('application/json') },
    { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }) },
  ),
  { nil: undefined, freq: 12 },
);
const contentEncoding = sometimes(
  fc.oneof(
    fc.record({ name: fc.constantFrom('gzip', 'deflate', 'br'), valid: fc.boolean() }),
    fc.record({ name: fc.constantFrom('identity', 'x-unknown', 'compress', 'GZIP', 'gzip, gzip', ''), valid: fc.constant(false) }),
  ),
  10,
);

type KeyName = 'own' | 'ownRead' | 'ownPublic' | 'foreign' | 'free' | 'deleted';
type KeySpec =
  | { kind: 'none' }
  | { kind: 'fixture'; name: KeyName; variant: 'plain' | 'padded' | 'lower' | 'twice' }
  | { kind: 'prefix'; length: number }
  | { kind: 'suffix'; junk: string }
  | { kind: 'flip'; at: number }
  | { kind: 'wellFormed'; random: string; type: 'sk' | 'pk' }
  | { kind: 'raw'; value: string };

const keySpec: fc.Arbitrary<KeySpec> = fc.oneof(
  { weight: 24, arbitrary: fc.constant({ kind: 'fixture' as const, name: 'own' as const, variant: 'plain' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('fixture' as const),
      name: fc.constantFrom<KeyName>('own', 'ownRead', 'ownPublic', 'foreign', 'free', 'deleted'),
      variant: fc.constantFrom('plain' as const, 'plain' as const, 'padded' as const, 'lower' as const, 'twice' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prefix' as const), length: fc.nat({ max: 39 }) }) },
  // Junk of spaces and tabs only would be trimmed off by HTTP (optional whitespace): not junk.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('suffix' as const),
      junk: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 }).filter((junk) => /[^\t ]/.test(junk)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat({ max: 39 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('wellFormed' as const),
      random: fc.stringMatching(/^[0-9A-Za-z]{27}$/),
      type: fc.constantFrom('sk' as const, 'pk' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      value: fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 60 }), fc.constantFrom('svc_sk_', 'svc_pk_', 'x'.repeat(5_000), 'Bearer x', 'null')),
    }),
  },
);

type TokenSpec = { kind: 'valid' } | { kind: 'none' } | { kind: 'wrong'; value: string } | { kind: 'ambiguous'; value: string };
const tokenSpec: fc.Arbitrary<TokenSpec> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wrong' as const),
      value: fc.oneof(
        fc.constantFrom(
          `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
          `Bearer ${ADMIN_TOKEN}x`,
          `Bearer  ${ADMIN_TOKEN}`,
          `Basic ${ADMIN_TOKEN}`,
          ADMIN_TOKEN,
          'Bearer',
          'Bearer ',
          `Token ${ADMIN_TOKEN}`,
          '{{key.own}}',
          'Bearer {{key.own}}',
        ),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((junk) => `Bearer ${junk}`),
      ),
    }),
  },
  // RFC 9110 makes the scheme case-insensitive; the contract does not say, so no oracle.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ambiguous' as const), value: fc.constantFrom(`bearer ${ADMIN_TOKEN}`, `BEARER ${ADMIN_TOKEN}`) }) },
);

/**
 * How a dashboard user's request is sent: whose session cookie (a member of the team tenant in
 * `role`, none, or a forged one), which Origin, which X-Tenant-Id, and on users-only routes
 * sometimes an API key beside them (which makes it a key's request).
 */
interface UserSpec {
  role: Role;
  cookie: 'valid' | 'none' | 'forged';
  origin: 'own' | 'none' | 'foreign';
  tenant: 'team' | 'none' | 'malformed' | 'foreign';
  key?: KeySpec;
}
const userSpec: fc.Arbitrary<UserSpec> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      role: fc.constantFrom<Role>('owner', 'owner', 'admin'),
      cookie: fc.constant('valid' as const),
      origin: fc.constant('own' as const),
      tenant: fc.constant('team' as const),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        role: fc.constantFrom(...ROLES),
        cookie: fc.constantFrom('valid' as const, 'valid' as const, 'valid' as const, 'none' as const, 'forged' as const),
        origin: fc.constantFrom('own' as const, 'own' as const, 'none' as const, 'foreign' as const),
        tenant: fc.constantFrom('team' as const, 'team' as const, 'none' as const, 'malformed' as const, 'foreign' as const),
        key: keySpec,
      },
      { requiredKeys: ['role', 'cookie', 'origin', 'tenant'] },
    ),
  },
);

const EXTRA_HEADER_NAMES = [
  'Accept',
  'Accept-Charset',
  'Accept-Encoding',
  'Accept-Language',
  'X-Forwarded-For',
  'X-Forwarded-Proto',
  'X-Forwarded-Host',
  'Forwarded',
  'Origin',
  'Referer',
  'User-Agent',
  'Cookie',
  'If-None-Match',
  'Range',
  'X-HTTP-Method-Override',
  'X-Real-IP',
  'X-Tenant-Id',
  'Authorization',
];
const extraHeaders = fc.array(
  fc.tuple(
    fc.constantFrom(...EXTRA_HEADER_NAMES),
    fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 40 }),
      fc.constantFrom('https', 'http', '127.0.0.1', 'text/html', 'application/xml', 'gzip, br', 'bytes=0-1', 'DELETE', '{{own.lead}}', '*'),
    ),
  ),
  { maxLength: 3 },
);
/** Idempotency-Key (docs/api.md, Idempotent requests): 1 to 255 printable ASCII characters, sent once; POST /api/v1/leads only. */
type IdempotencySpec = { kind: 'fresh' } | { kind: 'pooled'; value: string } | { kind: 'invalid'; value: string } | { kind: 'twice'; value: string };
const idempotencySpec: fc.Arbitrary<IdempotencySpec> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'fresh' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pooled' as const), value: fc.constantFrom('fz-idem-1', 'fz-idem-2', 'fz-idem-3', 'fz idem ~!') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('invalid' as const), value: fc.constantFrom('x'.repeat(256), 'cl\u00e9', 'a\tb', '\u00ff') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('twice' as const), value: fc.constantFrom('fz-twice-1', 'fz-twice-2') }) },
);

const requestId = sometimes(
  fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
    fc.string({ unit: 'binary', maxLength: 140 }),
    fc.constantFrom('', ' ', 'a'.repeat(128), 'a'.repeat(129), 'id with space', 'ÿþ', '<script>', '../../etc/passwd', 'abc\u00e9', ' padded '),
  ),
  30,
);

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

// No quoted local part ("a b"@example.com): class-validator accepts it, as RFC 5321 does, but
// ajv-formats' `email` format (the contract check) does not, which is the checker's limit.
const email = fc.oneof(
  fc.emailAddress(),
  fc.constantFrom('a@b.co', 'ada@example.com', 'A@B.CO', 'x@y', 'not-an-email', 'a@[127.0.0.1]', 'a\uD800@example.com', '\uDC00'),
);
const leadFields: BodyShape = {
  required: { name: str(fc.oneof(weirdText, fc.constantFrom('Ada Lovelace', ' Jane ', '😀'.repeat(200), 'a'.repeat(201)))), email: str(email) },
  optional: {
    phone: str(fc.oneof(weirdText, fc.constantFrom('+1 555 0100', '9'.repeat(51)))),
    company: str(weirdText),
    message: str(fc.oneof(weirdText, longText)),
    botId: str(fc.oneof(fc.constantFrom('{{own.bot}}', '{{own.inactiveBot}}', '{{foreign.bot}}', '{{own.bot:upper}}', ''), fc.uuid())),
    tags: fc.array(str(fc.oneof(weirdText, fc.constantFrom('webinar', 'a'.repeat(51), ' '))), { maxLength: 22 }).map((tags) => `[${tags.join(',')}]`),
  },
};
const statusField = str(
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...STATUSES) }, { weight: 1, arbitrary: fc.constantFrom('NEW', 'won', 'toString', ' new', '') }),
);
const { botId: _botId, ...leadOwnFields } = leadFields.optional;
/** PATCH /api/v1/leads/:id: every field optional; the status more often than the rest. */
const leadPatchFields: BodyShape = {
  required: {},
  optional: { status: statusField, ...leadFields.required, ...leadOwnFields, phone: fc.oneof(leadFields.optional.phone, fc.constant('null')) },
};
const leadEntry = objectBody(leadFields);
const importFields: BodyShape = {
  required: {
    leads: fc
      .array(fc.oneof({ weight: 5, arbitrary: leadEntry }, { weight: 1, arbitrary: fc.constantFrom('1', 'null', '[]', '"lead"') }), { maxLength: 4 })
      .map((items) => `[${items.join(',')}]`),
  },
  optional: {},
};
const tenantFields: BodyShape = {
  required: {
    name: str(weirdText),
    slug: str(fc.oneof(fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,6}){0,2}$/), fc.constantFrom('{{sandbox.slug}}', 'UPPER', 'a--b', '-a', 'a'.repeat(64)))),
    plan: str(fc.oneof(fc.constantFrom(...PLANS), weirdText)),
  },
  optional: {},
};
const tenantPatchFields: BodyShape = { required: {}, optional: { name: str(weirdText), plan: str(fc.oneof(fc.constantFrom(...PLANS), weirdText)) } };
const keyFields: BodyShape = {
  required: {
    name: str(weirdText),
    scopes: fc.array(str(fc.oneof(fc.constantFrom(...SCOPES), weirdText)), { maxLength: 10 }).map((items) => `[${items.join(',')}]`),
  },
  optional: {
    type: str(fc.constantFrom('secret', 'public', 'SECRET', '')),
    expiresAt: str(fc.constantFrom('2099-01-01T00:00:00Z', '2020-01-01T00:00:00Z', '2099-01-01', '2099-02-30T00:00:00Z', 'never')),
  },
};
const botOptional = {
  name: str(fc.oneof(weirdText, fc.constant('b'.repeat(101)))),
  primaryColor: str(fc.constantFrom('#2563eb', '#fff', 'red', '#12345g', '')),
  language: str(fc.constantFrom('en', 'de', 'EN', 'eng', '')),
  avatarUrl: fc.oneof(
    str(fc.constantFrom('https://example.com/a.png', 'http://example.com/a.png', 'javascript:alert(1)', `https://example.com/${'a'.repeat(2_100)}`)),
    fc.constant('null'),
  ),
  isActive: fc.constantFrom('true', 'false', '"true"', '0'),
};
const { name: botName, ...botSettings } = botOptional;
const botFields: BodyShape = { required: { name: botName }, optional: botSettings };
const botPatchFields: BodyShape = { required: {}, optional: botOptional };
const documentFields: BodyShape = { required: { title: str(weirdText), content: str(fc.oneof(weirdText, longText)) }, optional: {} };
const documentPatchFields: BodyShape = { required: {}, optional: documentFields.required };
const messageItem = fc
  .record({ role: maybe(str(fc.constantFrom('user', 'assistant', 'agent', 'system'))), content: maybe(str(fc.oneof(weirdText, fc.constant('Hello')))) })
  .map(({ role, content }) => `{"role":${role},"content":${content}}`);
const conversationFields: BodyShape = {
  required: { messages: fc.array(messageItem, { maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
  optional: {
    status: str(fc.constantFrom('active', 'ended', 'handed_off', 'closed')),
    channel: str(fc.constantFrom('widget', 'api', 'sms')),
    visitorId: str(weirdText),
    createdAt: str(fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01', 'now')),
    lead: objectBody({ required: leadFields.required, optional: { phone: leadFields.optional.phone, company: leadFields.optional.company } }),
  },
};

const tenantSettingsFields: BodyShape = {
  required: {},
  optional: {
    timezone: str(fc.oneof(fc.constantFrom('UTC', 'Europe/Berlin', 'europe/berlin', 'Asia/Kolkata', '+02:00', 'Mars/Base', ''), weirdText)),
    allowedOrigins: fc
      .array(
        str(
          fc.oneof(
            fc.constantFrom('https://www.example.com', 'http://localhost:3000', 'http://example.com', 'https://*.example.com', 'https://example.com/path'),
            weirdText,
          ),
        ),
        { maxLength: 52 },
      )
      .map((items) => `[${items.join(',')}]`),
    visitorMessageLimit: objectBody({
      required: {},
      optional: { messages: fc.constantFrom('1', '20', '1000', '1001', '0', '1.5', '"20"'), windowSeconds: fc.constantFrom('1', '60', '86400', '86401', '-1') },
    }),
    leadCapture: objectBody({
      required: {},
      optional: {
        enabled: fc.constantFrom('true', 'false', '"true"'),
        requirePhone: fc.constantFrom('true', 'false', '1'),
        requireCompany: fc.constantFrom('true', 'false', 'null'),
      },
    }),
  },
};
const botSettingsFields: BodyShape = {
  required: {},
  optional: {
    welcomeMessage: fc.oneof(str(fc.oneof(weirdText, fc.constant('w'.repeat(501)))), fc.constant('null')),
    suggestedQuestions: fc.array(str(fc.oneof(weirdText, fc.constant('q'.repeat(201)))), { maxLength: 6 }).map((items) => `[${items.join(',')}]`),
    fallbackMessage: str(fc.oneof(weirdText, fc.constant(''))),
    showSources: fc.constantFrom('true', 'false', '"false"', 'null'),
  },
};

const WEBHOOK_EVENTS = SUBSCRIBABLE_EVENTS;
const webhookUrl = str(
  fc.constantFrom(
    'https://hooks.example.com/in',
    'http://hooks.example.com/in',
    'https://127.0.0.1/in',
    'https://10.0.0.1/in',
    'https://169.254.169.254/x',
    'https://[::1]/in',
    'https://user:pw@hooks.example.com/in',
    'https://localhost/in',
    '/relative',
    'javascript:alert(1)',
    `https://example.com/${'a'.repeat(2_100)}`,
    '',
  ),
);
const webhookEvents = fc.array(str(fc.oneof(fc.constantFrom(...WEBHOOK_EVENTS), weirdText)), { maxLength: 12 }).map((items) => `[${items.join(',')}]`);
const webhookFields: BodyShape = {
  required: { url: webhookUrl, events: webhookEvents },
  optional: { description: fc.oneof(str(weirdText), fc.constant('null')) },
};
const emptyBody: BodyShape = { required: {}, optional: {}, valid: fc.constantFrom('{}') };
const webhookPatchFields: BodyShape = {
  required: {},
  optional: { ...webhookFields.required, ...webhookFields.optional, enabled: fc.constantFrom('true', 'false', '"false"', 'null') },
};

const password = str(fc.oneof(weirdText, longText, fc.constantFrom('correct horse battery', 'short', 'p'.repeat(257))));
const roleField = str(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ROLES) }, { weight: 1, arbitrary: fc.constantFrom('OWNER', 'root', '', 'member') }));
const signUpFields: BodyShape = { required: { email: str(email), password, name: str(weirdText), tenantName: str(weirdText) }, optional: {} };
const logInFields: BodyShape = {
  required: { email: str(fc.oneof(email, fc.constant('{{login.email}}'))), password: str(fc.oneof(weirdText, fc.constant('{{login.password}}'))) },
  optional: {},
};
const updateMeFields: BodyShape = {
  required: { currentPassword: str(fc.oneof(weirdText, fc.constant('{{self.password}}'))) },
  optional: { name: str(weirdText), password },
};
const INVITATION_TOKENS = ['{{invitation.first}}', '{{invitation.second}}', '{{invitation.third}}', '{{invitation.withdrawn}}'];
const acceptFields: BodyShape = {
  required: { token: str(fc.oneof(weirdText, fc.constantFrom(...INVITATION_TOKENS))) },
  optional: { name: str(weirdText), password },
};
const resetRequestFields: BodyShape = { required: { email: str(fc.oneof(email, fc.constant('{{reset.email}}'))) }, optional: {} };
const RESET_TOKENS = ['{{reset.first}}', '{{reset.second}}', '{{reset.third}}'];
const resetConfirmFields: BodyShape = { required: { token: str(fc.oneof(weirdText, fc.constantFrom(...RESET_TOKENS))), password }, optional: {} };
const renameTenantFields: BodyShape = { required: { name: str(fc.oneof(weirdText, fc.constant('t'.repeat(201)))) }, optional: {} };
const memberFields: BodyShape = { required: { role: roleField }, optional: {} };
const invitationFields: BodyShape = { required: { email: str(email), role: roleField }, optional: {} };

// Bodies the contract accepts (JSON.stringify: well-formed, no duplicate keys).
const goodName = fc.oneof(
  fc.constantFrom('Ada Lovelace', 'Jane Doe', 'Zoë Brontë', '李小龙', 'שלום עליכם', '😀 Smile', ' Padded Name ', 'a'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((text) => text.trim().length > 0 && !text.includes('\u0000')),
);
const goodEmail = fc.constantFrom('ada@example.com', 'jane.doe+tag@example.co.uk', 'X@Y.IO', "o'brien@example.org", 'user_1@sub.example.com');
const goodLead = fc
  .record(
    {
      name: goodName,
      email: goodEmail,
      phone: fc.constantFrom('+1 555 0100', '', '0049 30 1234567'),
      company: fc.oneof(goodName, fc.constant('')),
      message: fc.oneof(goodName, fc.constant('')),
      botId: fc.constantFrom('{{own.bot}}', '{{own.inactiveBot}}'),
      tags: fc.array(fc.constantFrom('webinar', 'vip', ' spaced ', 'ümlaut', '😀'), { maxLength: 20 }),
    },
    { requiredKeys: ['name', 'email'] },
  )
  .map((lead) => JSON.stringify(lead));
const goodLeadPatch = fc
  .record(
    {
      status: fc.constantFrom(...STATUSES),
      name: goodName,
      company: fc.oneof(goodName, fc.constant(null)),
      tags: fc.array(fc.constantFrom('vip', 'webinar'), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  )
  .filter((patch) => Object.keys(patch).length > 0)
  .map((patch) => JSON.stringify(patch));
const goodTenantSettings = fc
  .record(
    {
      timezone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
      allowedOrigins: fc.subarray(['https://www.example.com', 'https://shop.example.com:8443']),
      leadCapture: fc.record({ enabled: fc.boolean() }),
    },
    { requiredKeys: [] },
  )
  .filter((settings) => Object.keys(settings).length > 0)
  .map((settings) => JSON.stringify(settings));
const goodBotSettings = fc
  .record(
    {
      welcomeMessage: fc.oneof(goodName, fc.constant(null)),
      suggestedQuestions: fc.array(goodName, { maxLength: 5 }),
      fallbackMessage: goodName,
      showSources: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .filter((settings) => Object.keys(settings).length > 0 && [...(settings.fallbackMessage ?? 'x').trim()].length <= 500)
  .map((settings) => JSON.stringify(settings));
const goodImport = fc.array(goodLead, { minLength: 1, maxLength: 3 }).map((leads) => `{"leads":[${leads.join(',')}]}`);
const goodTenant = fc
  .record({ name: goodName, slug: fc.stringMatching(/^fz-[a-z0-9]{10}$/), plan: fc.constantFrom(...PLANS) })
  .map((tenant) => JSON.stringify(tenant));
const goodTenantPatch = fc
  .record({ name: goodName, plan: fc.constantFrom('pro', 'business', 'enterprise', 'enterprise', 'free') }, { requiredKeys: [] })
  .map((patch) => JSON.stringify(patch));
const goodKey = fc
  .record(
    { name: goodName, scopes: fc.subarray(SCOPES), type: fc.constantFrom('secret', 'public'), expiresAt: fc.constant('2099-01-01T00:00:00Z') },
    { requiredKeys: ['name', 'scopes'] },
  )
  .map((key) => JSON.stringify(key));
const goodBot = fc
  .record(
    {
      name: goodName,
      primaryColor: fc.constantFrom('#2563eb', '#fff'),
      language: fc.constantFrom('en', 'de'),
      avatarUrl: fc.constantFrom('https://example.com/a.png', null),
      isActive: fc.boolean(),
    },
    { requiredKeys: ['name'] },
  )
  .filter((bot) => [...bot.name.trim()].length <= 100)
  .map((bot) => JSON.stringify(bot));
const goodBotPatch = fc
  .record(
    { name: goodName, primaryColor: fc.constantFrom('#2563eb', '#fff'), language: fc.constantFrom('en', 'de'), isActive: fc.boolean() },
    { requiredKeys: [] },
  )
  .map((bot) => JSON.stringify(bot));
const goodDocument = fc.record({ title: goodName, content: fc.oneof(goodName, fc.constant('Pricing: see the website.')) }).map((doc) => JSON.stringify(doc));
const goodDocumentPatch = fc
  .record({ title: goodName, content: fc.oneof(goodName, fc.constant('Pricing: see the website.')) }, { requiredKeys: [] })
  .map((doc) => JSON.stringify(doc));
const goodWebhook = fc
  .record(
    {
      url: fc.constantFrom('https://hooks.example.com/in', 'https://crm.example.org/webhooks?x=1'),
      events: fc.oneof(fc.constant(['*']), fc.subarray(WEBHOOK_EVENTS.slice(0, -1), { minLength: 1 })),
      description: fc.oneof(goodName, fc.constant(null)),
    },
    { requiredKeys: ['url', 'events'] },
  )
  .map((webhook) => JSON.stringify(webhook));
const goodWebhookPatch = fc
  .record(
    {
      url: fc.constant('https://hooks.example.com/other'),
      events: fc.constant(['lead.created']),
      description: fc.oneof(goodName, fc.constant(null)),
      enabled: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .map((patch) => JSON.stringify(patch));
const goodConversation = fc
  .record(
    {
      status: fc.constantFrom('active', 'ended', 'handed_off'),
      channel: fc.constantFrom('widget', 'api'),
      messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'agent'), content: goodName }), { maxLength: 4 }),
      lead: fc.record({ name: goodName, email: goodEmail }),
    },
    { requiredKeys: ['messages'] },
  )
  .map((conversation) => JSON.stringify(conversation));
tenantSettingsFields.valid = goodTenantSettings;
botSettingsFields.valid = goodBotSettings;
leadFields.valid = goodLead;
leadPatchFields.valid = goodLeadPatch;
importFields.valid = goodImport;
tenantFields.valid = goodTenant;
tenantPatchFields.valid = goodTenantPatch;
keyFields.valid = goodKey;
botFields.valid = goodBot;
botPatchFields.valid = goodBotPatch;
documentFields.valid = goodDocument;
documentPatchFields.valid = goodDocumentPatch;
conversationFields.valid = goodConversation;
webhookFields.valid = goodWebhook;
webhookPatchFields.valid = goodWebhookPatch;
const freshEmail = fc.uuid().map((id) => `fz-${id.slice(0, 13)}@example.com`);
signUpFields.valid = fc
  .record({ email: freshEmail, password: fc.constant('correct horse battery'), name: goodName, tenantName: goodName })
  .map((body) => JSON.stringify(body));
logInFields.valid = fc.constantFrom(
  '{"email":"{{login.email}}","password":"{{login.password}}"}',
  '{"email":"{{login.email}}","password":"not the password"}',
  '{"email":"nobody@example.com","password":"correct horse battery"}',
);
// The password is set to itself, so the session's user can still log in with the one the suite knows.
updateMeFields.valid = fc
  .record(
    { name: goodName, password: fc.constant('{{self.password}}'), currentPassword: fc.constant('{{self.password}}') },
    { requiredKeys: ['currentPassword'] },
  )
  .map((body) => JSON.stringify(body));
acceptFields.valid = fc
  .record({ token: fc.constantFrom(...INVITATION_TOKENS), name: goodName, password: fc.constant('invited password 1') })
  .map((body) => JSON.stringify(body));
resetRequestFields.valid = fc.record({ email: fc.oneof(goodEmail, fc.constant('{{reset.email}}')) }).map((body) => JSON.stringify(body));
resetConfirmFields.valid = fc
  .record({ token: fc.constantFrom(...RESET_TOKENS), password: fc.constant('reset password 123') })
  .map((body) => JSON.stringify(body));
renameTenantFields.valid = fc.record({ name: goodName }).map((body) => JSON.stringify(body));
memberFields.valid = fc.record({ role: fc.constantFrom(...ROLES) }).map((body) => JSON.stringify(body));
invitationFields.valid = fc.record({ email: freshEmail, role: fc.constantFrom(...ROLES) }).map((body) => JSON.stringify(body));

const BODY_METHODS: string[] = ['POST', 'PUT', 'PATCH'];
const OWN_IDS = ['own.bot', 'own.inactiveBot', 'own.conversation', 'own.lead', 'own.widgetLead', 'foreign.bot', 'foreign.conversation', 'foreign.lead'];
const API_ROUTES: RouteDef[] = [
  { method: 'GET', template: '/api/v1/verify', scope: null },
  { method: 'GET', template: '/api/v1/bots', scope: 'bots:read' },
  { method: 'GET', template: '/api/v1/bots/{id}', scope: 'bots:read', ids: [['own.bot', 'own.inactiveBot', 'foreign.bot', 'own.lead']] },
  {
    method: 'GET',
    template: '/api/v1/conversations',
    scope: 'conversations:read',
    query: ['limit', 'offset', 'botId', 'status', 'from', 'to', 'sort', 'externalId'],
  },
  {
    method: 'GET',
    template: '/api/v1/conversations/{id}',
    scope: 'conversations:read',
    ids: [['own.conversation', 'foreign.conversation', 'own.bot']],
  },
  {
    method: 'GET',
    template: '/api/v1/conversations/{id}/messages',
    scope: 'conversations:read',
    query: ['limit', 'offset'],
    ids: [['own.conversation', 'foreign.conversation', 'own.lead']],
  },
  { method: 'GET', template: '/api/v1/leads', scope: 'leads:read', query: ['limit', 'offset', 'botId', 'from', 'to', 'search'] },
  { method: 'GET', template: '/api/v1/leads/{id}', scope: 'leads:read', ids: [['own.lead', 'own.widgetLead', 'foreign.lead', 'own.bot']] },
  { method: 'GET', template: '/api/v1/analytics/overview', scope: 'analytics:read', query: ['botId', 'from', 'to'] },
  { method: 'GET', template: '/api/v1/analytics/timeseries', scope: 'analytics:read', query: ['metric', 'interval', 'botId', 'from', 'to'] },
];
const CREATE_LEAD: RouteDef = { method: 'POST', template: '/api/v1/leads', scope: 'leads:write', body: leadFields };
const UPDATE_LEAD: RouteDef = {
  method: 'PATCH',
  template: '/api/v1/leads/{id}',
  scope: 'leads:write',
  ids: [['own.lead', 'own.lead2', 'own.lead3', 'own.widgetLead', 'foreign.lead']],
  body: leadPatchFields,
};
const IMPORT_LEADS: RouteDef = {
  method: 'POST',
  template: '/api/v1/leads/import',
  scope: 'leads:write',
  body: importFields,
  bodyLimit: 4 * 1024 * 1024,
};
const EXPORT_LEADS: RouteDef = {
  method: 'GET',
  template: '/api/v1/leads/export',
  scope: 'leads:read',
  query: ['botId', 'from', 'to', 'search'],
  produces: 'text/csv',
};
const ADMIN_TENANTS = ['sandbox.tenant', 'sandbox.tenant', 'sandbox.tenant', 'sandboxFree.tenant'];
const ADMIN_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/admin/v1/tenants', admin: true, body: tenantFields },
  { method: 'GET', template: '/admin/v1/tenants/{tenantId}', admin: true, ids: [ADMIN_TENANTS] },
  { method: 'PATCH', template: '/admin/v1/tenants/{tenantId}', admin: true, ids: [ADMIN_TENANTS], body: tenantPatchFields },
  { method: 'POST', template: '/admin/v1/tenants/{tenantId}/api-keys', admin: true, ids: [ADMIN_TENANTS], body: keyFields },
  { method: 'GET', template: '/admin/v1/tenants/{tenantId}/api-keys', admin: true, ids: [ADMIN_TENANTS] },
  { method: 'DELETE', template: '/admin/v1/tenants/{tenantId}/api-keys/{keyId}', admin: true, ids: [ADMIN_TENANTS, ['sandbox.key', 'sandbox.key2']] },
  { method: 'POST', template: '/admin/v1/tenants/{tenantId}/bots', admin: true, ids: [ADMIN_TENANTS], body: botFields },
  {
    method: 'PATCH',
    template: '/admin/v1/tenants/{tenantId}/bots/{botId}',
    admin: true,
    ids: [ADMIN_TENANTS, ['sandbox.bot', 'sandboxFree.bot']],
    body: botPatchFields,
  },
  {
    method: 'POST',
    template: '/admin/v1/tenants/{tenantId}/bots/{botId}/documents',
    admin: true,
    ids: [ADMIN_TENANTS, ['sandbox.bot', 'sandboxFree.bot']],
    body: documentFields,
    bodyLimit: DOCUMENT_BODY_LIMIT,
  },
  {
    method: 'POST',
    template: '/admin/v1/tenants/{tenantId}/bots/{botId}/conversations',
    admin: true,
    ids: [ADMIN_TENANTS, ['sandbox.bot', 'sandboxFree.bot']],
    body: conversationFields,
  },
  {
    method: 'GET',
    template: '/admin/v1/tenants/{tenantId}/audit-log',
    admin: true,
    ids: [ADMIN_TENANTS],
    query: ['limit', 'offset', 'from', 'to', 'actor', 'action'],
  },
  { method: 'POST', template: '/admin/v1/users/{userId}/password-resets', admin: true, ids: [['reset.user', 'team.target', 'own.lead']], body: emptyBody },
];
const SETTINGS_ROUTES: RouteDef[] = [
  { method: 'GET', template: '/api/v1/settings', scope: 'settings:read' },
  { method: 'PATCH', template: '/api/v1/settings', scope: 'settings:write', body: tenantSettingsFields },
  {
    method: 'GET',
    template: '/api/v1/bots/{id}/settings',
    scope: 'settings:read',
    ids: [['own.bot', 'own.inactiveBot', 'foreign.bot', 'own.lead']],
  },
  {
    method: 'PATCH',
    template: '/api/v1/bots/{id}/settings',
    scope: 'settings:write',
    ids: [['own.bot', 'own.inactiveBot', 'foreign.bot', 'own.lead']],
    body: botSettingsFields,
  },
];
const WIDGET_IDS = ['own.conversation', 'foreign.conversation', 'own.lead'];
const widgetSessionFields: BodyShape = {
  required: { botId: str(fc.constantFrom('{{own.bot}}', '{{own.inactiveBot}}', '{{foreign.bot}}', 'bot')) },
  optional: {
    visitorToken: str(fc.oneof(weirdText, fc.constantFrom('v1.e30.x', 'short'))),
    visitorId: str(fc.oneof(weirdText, fc.constantFrom('visitor-0001', 'short'))),
  },
};
const widgetMessageFields: BodyShape = { required: { content: str(fc.oneof(weirdText, longText)) }, optional: {} };
const widgetLeadFields: BodyShape = {
  required: leadFields.required,
  optional: { phone: leadFields.optional.phone, company: leadFields.optional.company, message: leadFields.optional.message },
};
const WIDGET_ROUTES: RouteDef[] = [
  { method: 'GET', template: '/api/v1/widget/bots/{botId}', widget: true, ids: [['own.bot', 'own.inactiveBot', 'foreign.bot', 'own.lead']] },
  { method: 'POST', template: '/api/v1/widget/sessions', widget: true, body: widgetSessionFields },
  { method: 'POST', template: '/api/v1/widget/conversations', widget: true },
  { method: 'GET', template: '/api/v1/widget/conversations', widget: true },
  { method: 'GET', template: '/api/v1/widget/conversations/{id}/messages', widget: true, query: ['after'], ids: [WIDGET_IDS] },
  { method: 'POST', template: '/api/v1/widget/conversations/{id}/messages', widget: true, ids: [WIDGET_IDS], body: widgetMessageFields },
  { method: 'POST', template: '/api/v1/widget/conversations/{id}/lead', widget: true, ids: [WIDGET_IDS], body: widgetLeadFields },
  { method: 'POST', template: '/api/v1/widget/conversations/{id}/end', widget: true, ids: [WIDGET_IDS] },
  { method: 'POST', template: '/api/v1/widget/conversations/{id}/handoff', widget: true, ids: [WIDGET_IDS] },
];
const WEBHOOK_IDS = ['own.webhook', 'own.webhook2', 'foreign.webhook', 'own.lead'];
const WEBHOOK_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/api/v1/webhooks', scope: 'webhooks:manage', body: webhookFields },
  { method: 'GET', template: '/api/v1/webhooks', scope: 'webhooks:manage' },
  { method: 'GET', template: '/api/v1/webhooks/{id}', scope: 'webhooks:manage', ids: [WEBHOOK_IDS] },
  { method: 'PATCH', template: '/api/v1/webhooks/{id}', scope: 'webhooks:manage', ids: [WEBHOOK_IDS], body: webhookPatchFields },
  { method: 'DELETE', template: '/api/v1/webhooks/{id}', scope: 'webhooks:manage', ids: [['own.webhook2', 'foreign.webhook', 'own.lead']] },
  { method: 'POST', template: '/api/v1/webhooks/{id}/rotate-secret', scope: 'webhooks:manage', ids: [WEBHOOK_IDS] },
  { method: 'POST', template: '/api/v1/webhooks/{id}/test', scope: 'webhooks:manage', ids: [WEBHOOK_IDS] },
  { method: 'GET', template: '/api/v1/webhooks/{id}/deliveries', scope: 'webhooks:manage', query: ['limit', 'offset', 'status'], ids: [WEBHOOK_IDS] },
  {
    method: 'POST',
    template: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
    scope: 'webhooks:manage',
    ids: [WEBHOOK_IDS, ['own.delivery', 'foreign.delivery', 'own.lead']],
  },
];
const DOCUMENT_BOTS = ['own.bot', 'foreign.bot', 'own.lead'];
const DOCUMENT_IDS = ['own.document', 'foreign.document', 'own.lead'];
const KNOWLEDGE_ROUTES: RouteDef[] = [
  { method: 'GET', template: '/api/v1/bots/{id}/documents', scope: 'bots:read', query: ['limit', 'offset'], ids: [DOCUMENT_BOTS] },
  {
    method: 'POST',
    template: '/api/v1/bots/{id}/documents',
    scope: 'knowledge:write',
    ids: [DOCUMENT_BOTS],
    body: documentFields,
    bodyLimit: DOCUMENT_BODY_LIMIT,
  },
  { method: 'GET', template: '/api/v1/bots/{id}/documents/{docId}', scope: 'bots:read', ids: [DOCUMENT_BOTS, DOCUMENT_IDS] },
  {
    method: 'PATCH',
    template: '/api/v1/bots/{id}/documents/{docId}',
    scope: 'knowledge:write',
    ids: [DOCUMENT_BOTS, DOCUMENT_IDS],
    body: documentPatchFields,
    bodyLimit: DOCUMENT_BODY_LIMIT,
  },
  {
    method: 'DELETE',
    template: '/api/v1/bots/{id}/documents/{docId}',
    scope: 'knowledge:write',
    ids: [DOCUMENT_BOTS, ['own.document2', 'foreign.document', 'own.lead']],
  },
];
// Human handoff, deletes of single rows, a person's export and erasure (API_DECISIONS part 3).
// Conversations that may be ended or deleted are their own fixtures, away from the ones the
// other routes read; deleted leads are their own too (the lead accounting subtracts each 204).
const agentMessageFields: BodyShape = {
  required: { content: str(fc.oneof(weirdText, longText, fc.constant('c'.repeat(4_001)))) },
  optional: { authorName: fc.oneof(str(fc.oneof(weirdText, fc.constant('n'.repeat(101)))), fc.constant('null')) },
  valid: fc.record({ content: goodName, authorName: goodName }, { requiredKeys: ['content'] }).map((body) => JSON.stringify(body)),
};
/**
 * The person of an export or erasure: values no lead or conversation of the suite has, so that
 * an erasure finds nothing and its background worker deletes nothing (the lead accounting and
 * the "nothing changes on an error" snapshots stay exact; a 202 that found something fails).
 */
const NOBODY = ['nobody@erasure.example', 'NoBody@Erasure.Example', ' nobody@erasure.example ', 'erasure-visitor-none'];
const personFields: BodyShape = {
  required: {},
  optional: {
    email: str(fc.oneof(weirdText, fc.constantFrom(...NOBODY), fc.constant(`${'e'.repeat(250)}@x.io`))),
    visitorId: str(fc.oneof(weirdText, fc.constantFrom(...NOBODY), fc.constant('v'.repeat(201)))),
  },
  valid: fc
    .oneof(fc.record({ email: fc.constantFrom(...NOBODY.filter((value) => value.includes('@'))) }), fc.record({ visitorId: fc.constantFrom(...NOBODY) }))
    .map((body) => JSON.stringify(body)),
};
const assigneeFields: BodyShape = {
  required: {
    userId: fc.oneof(
      str(fc.oneof(fc.constantFrom('{{team.owner}}', '{{team.agent}}', '{{team.target}}', '{{foreign.user}}', '{{own.lead}}'), weirdText)),
      fc.constant('null'),
    ),
  },
  optional: { force: fc.constantFrom('true', 'false', '"true"', 'null') },
  valid: fc
    .record({ userId: fc.constantFrom('{{team.owner}}', '{{team.agent}}', null), force: fc.boolean() }, { requiredKeys: ['userId'] })
    .map((body) => JSON.stringify(body)),
};
const LIVE_CONVERSATIONS = ['own.liveConversation', 'own.liveConversation', 'own.conversation', 'foreign.conversation', 'own.lead'];
const HANDOFF_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/api/v1/conversations/{id}/handoff', scope: 'conversations:write', ids: [LIVE_CONVERSATIONS] },
  { method: 'POST', template: '/api/v1/conversations/{id}/messages', scope: 'conversations:write', ids: [LIVE_CONVERSATIONS], body: agentMessageFields },
  { method: 'POST', template: '/api/v1/conversations/{id}/release', scope: 'conversations:write', ids: [LIVE_CONVERSATIONS] },
  {
    method: 'POST',
    template: '/api/v1/conversations/{id}/end',
    scope: 'conversations:write',
    ids: [['own.endingConversation', 'own.endingConversation', 'own.conversation', 'foreign.conversation', 'own.lead']],
  },
  {
    method: 'DELETE',
    template: '/api/v1/conversations/{id}',
    scope: 'conversations:write',
    ids: [['own.doomedConversation', 'own.doomedConversation2', 'own.doomedConversation', 'foreign.conversation', 'own.lead']],
  },
];
/** The API channel's conversations: its own (twice, to reach the success), a widget one, another tenant's, and a lead's id (all 404). */
const API_CONVERSATIONS = ['own.apiConversation', 'own.apiConversation', 'own.liveConversation', 'foreign.conversation', 'own.lead'];
const apiConversationFields: BodyShape = {
  required: { botId: str(fc.oneof(fc.constantFrom('{{own.bot}}', '{{own.inactiveBot}}', '{{foreign.bot}}', '{{own.bot:upper}}', 'bot'), fc.uuid())) },
  optional: {
    externalId: fc.oneof(str(fc.oneof(weirdText, fc.constantFrom('wa:+4915100000001', 'x'.repeat(201)))), fc.constant('null')),
    visitor: fc.oneof(
      fc
        .record({ name: fc.oneof(goodName, weirdText, fc.constant('n'.repeat(201))), email: fc.oneof(goodEmail, weirdText) }, { requiredKeys: [] })
        .map((visitor) => JSON.stringify(visitor)),
      fc.constantFrom('null', '"Ada"', '[]', '{"name":null}', '{"phone":"+1 555 0100"}'),
    ),
  },
  valid: fc
    .record(
      {
        botId: fc.constant('{{own.bot}}'),
        externalId: fc.constantFrom('wa:+4915100000001', 'slack:U0001', 'user-42'),
        visitor: fc.record({ name: goodName, email: goodEmail }, { requiredKeys: [] }),
      },
      { requiredKeys: ['botId'] },
    )
    .map((body) => JSON.stringify(body)),
};
const API_CHANNEL_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/api/v1/conversations', scope: 'conversations:write', body: apiConversationFields },
  {
    method: 'POST',
    template: '/api/v1/conversations/{id}/visitor-messages',
    scope: 'conversations:write',
    ids: [API_CONVERSATIONS],
    body: widgetMessageFields,
  },
];
const DELETE_LEAD: RouteDef = {
  method: 'DELETE',
  template: '/api/v1/leads/{id}',
  scope: 'leads:write',
  ids: [['own.doomedLead', 'own.doomedLead2', 'foreign.lead', 'own.bot']],
};
const PRIVACY_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/api/v1/privacy/exports', scope: 'privacy:manage', body: personFields },
  { method: 'POST', template: '/api/v1/privacy/erasures', scope: 'privacy:manage', body: personFields },
  { method: 'GET', template: '/api/v1/privacy/erasures/{id}', scope: 'privacy:manage', ids: [['own.erasure', 'foreign.erasure', 'own.lead']] },
];
/** Routes that take an Idempotency-Key besides the lead creates: their first answer is replayed. */
const IDEMPOTENT_TEMPLATES = new Set(['/api/v1/conversations/{id}/messages', '/api/v1/privacy/erasures']);
const member = { kind: 'tenant', role: 'member' } as const;
const manager = { kind: 'tenant', role: 'manager' } as const;
const TEAM_MEMBERS = ['team.target', 'team.targetTwo', 'foreign.user', 'own.lead'];
const TEAM_INVITATIONS = ['team.invitation', 'team.invitationTwo', 'foreign.invitation', 'own.lead'];
const TEAM_KEYS = ['team.key', 'team.keyTwo', 'foreign.key', 'own.lead'];
const TEAM_BOTS = ['team.bot', 'foreign.bot', 'own.lead'];
const TENANT_USER_ROUTES: RouteDef[] = [
  { method: 'GET', template: '/api/v1/tenant', user: member },
  { method: 'PATCH', template: '/api/v1/tenant', user: manager, body: renameTenantFields },
  { method: 'GET', template: '/api/v1/members', user: member },
  { method: 'PATCH', template: '/api/v1/members/{userId}', user: manager, ids: [TEAM_MEMBERS], body: memberFields },
  { method: 'DELETE', template: '/api/v1/members/{userId}', user: member, ids: [TEAM_MEMBERS], query: ['revokeKeys'] },
  { method: 'POST', template: '/api/v1/invitations', user: manager, body: invitationFields },
  { method: 'GET', template: '/api/v1/invitations', user: manager },
  { method: 'DELETE', template: '/api/v1/invitations/{id}', user: manager, ids: [TEAM_INVITATIONS] },
  { method: 'GET', template: '/api/v1/api-keys', user: manager },
  { method: 'POST', template: '/api/v1/api-keys', user: manager, body: keyFields },
  { method: 'DELETE', template: '/api/v1/api-keys/{id}', user: manager, ids: [TEAM_KEYS] },
  { method: 'GET', template: '/api/v1/api-keys/{id}/activity', user: manager, ids: [TEAM_KEYS] },
  { method: 'POST', template: '/api/v1/bots', user: manager, body: botFields },
  { method: 'PATCH', template: '/api/v1/bots/{id}', user: manager, ids: [TEAM_BOTS], body: botPatchFields },
  { method: 'GET', template: '/api/v1/audit-log', user: manager, query: ['limit', 'offset', 'from', 'to', 'actor', 'action'] },
  { method: 'POST', template: '/api/v1/identity-secret', user: manager },
  { method: 'DELETE', template: '/api/v1/identity-secret', user: manager },
  {
    method: 'PUT',
    template: '/api/v1/conversations/{id}/assignee',
    user: { kind: 'tenant', role: 'member', scopes: ['conversations:write'] },
    ids: [['team.conversation', 'team.conversation', 'foreign.conversation', 'own.lead']],
    body: assigneeFields,
  },
];
const session = { kind: 'session' } as const;
const signIn = { kind: 'signIn' } as const;
const AUTH_ROUTES: RouteDef[] = [
  { method: 'POST', template: '/auth/v1/signup', user: signIn, body: signUpFields },
  { method: 'POST', template: '/auth/v1/sessions', user: signIn, body: logInFields },
  { method: 'GET', template: '/auth/v1/sessions', user: session },
  { method: 'DELETE', template: '/auth/v1/sessions/{id}', user: session, ids: [['self.otherSession', 'foreign.session', 'own.lead']] },
  { method: 'DELETE', template: '/auth/v1/sessions/current', user: session },
  { method: 'GET', template: '/auth/v1/me', user: session },
  { method: 'PATCH', template: '/auth/v1/me', user: session, body: updateMeFields },
  { method: 'POST', template: '/auth/v1/invitations/accept', user: signIn, body: acceptFields },
  { method: 'POST', template: '/auth/v1/password-resets', user: signIn, body: resetRequestFields },
  { method: 'POST', template: '/auth/v1/password-resets/confirm', user: signIn, body: resetConfirmFields },
];
const USER_ROUTES = [...TENANT_USER_ROUTES, ...AUTH_ROUTES];
const ALL_ROUTES = [
  ...API_ROUTES,
  CREATE_LEAD,
  UPDATE_LEAD,
  IMPORT_LEADS,
  EXPORT_LEADS,
  DELETE_LEAD,
  ...HANDOFF_ROUTES,
  ...API_CHANNEL_ROUTES,
  ...PRIVACY_ROUTES,
  ...SETTINGS_ROUTES,
  ...WIDGET_ROUTES,
  ...WEBHOOK_ROUTES,
  ...KNOWLEDGE_ROUTES,
  ...ADMIN_ROUTES,
  ...USER_ROUTES,
];
/**
 * Served routes not fuzzed: the public ones with no key, body or query (the health probes, the
 * API description (openapi.e2e-spec), the widget's script and demo, the dashboard's page and
 * files), and the live streams (the visitor's and the inbox's), server-sent event streams that
 * stay open (they answer no single response to judge; handoff-live.e2e-spec and
 * conversation-stream.e2e-spec cover them).
 */
const NOT_FUZZED = [
  'GET /dashboard',
  'GET /dashboard/{path}',
  'GET /api/v1/widget/conversations/{id}/events',
  'GET /api/v1/conversations/{id}/events',
  'GET /health/live',
  'GET /health/ready',
  'GET /api/v1/openapi.json',
  'GET /docs',
  'GET /docs/assets/{file}',
  'GET /widget.js',
  'GET /widget/demo',
];
const routeId = (route: RouteDef) => `${route.method} ${route.template}`;
const ROUTES = new Map(ALL_ROUTES.map((route) => [routeId(route), route]));

const PATH_SEGMENTS = [
  '%',
  '%zz',
  '%ED%A0%80',
  '%00',
  '..',
  '.',
  '%2F',
  '%2e%2e',
  'null',
  'undefined',
  '0',
  '-1',
  '1e400',
  '{{own.lead}}%00',
  '{{own.lead}}x',
  '%20',
  '%E2%80%AE',
  '~',
  "'",
  '*',
  '(',
  ')',
  '!',
  '$',
  ',',
  ';',
  '=',
  '@',
  ':',
];
function pathSegment(names: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...names).map((name) => `{{${name}}}`) },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((name) => `{{${name}:upper}}`) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...PATH_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(enc) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 4_000 }).map((count) => 'a'.repeat(count)) },
  );
}

function routePath(route: RouteDef): fc.Arbitrary<string> {
  const params = route.template.match(/\{[^}]+\}/g) ?? [];
  if (!params.length) return fc.constant(route.template);
  return fc.tuple(...params.map((_, index) => pathSegment(route.ids?.[index] ?? OWN_IDS))).map((segments) => {
    let index = 0;
    return route.template.replace(/\{[^}]+\}/g, () => segments[index++]);
  });
}

interface FuzzRequest {
  method: string;
  /** "METHOD /template" of the route the path was made for; undefined for arbitrary paths. */
  route?: string;
  path: string;
  query: string;
  key?: KeySpec;
  token?: TokenSpec;
  user?: UserSpec;
  contentType?: string;
  encoding?: { name: string; valid: boolean };
  body?: BodySpec;
  requestId?: string;
  idempotency?: IdempotencySpec;
  /** After a 201 with an Idempotency-Key, send it again: the same bytes, or the body reordered. */
  retry?: 'same' | 'reordered';
  headers: [string, string][];
}

function requestFor(route: RouteDef, overrides: { method?: fc.Arbitrary<string> } = {}): fc.Arbitrary<FuzzRequest> {
  const hasBody = BODY_METHODS.includes(route.method);
  return fc.record({
    method: overrides.method ?? fc.constant(route.method),
    route: fc.constant(routeId(route)),
    path: routePath(route),
    query: fc.oneof({ weight: route.query?.length ? 3 : 6, arbitrary: fc.constant('') }, { weight: 4, arbitrary: queryString(route.query ?? []) }),
    key: route.admin || route.user ? fc.constant(undefined) : keySpec,
    token: route.admin ? tokenSpec : fc.constant(undefined),
    user: route.user ? userSpec : fc.constant(undefined),
    contentType: hasBody ? contentType : sometimes(contentType, 10),
    encoding: hasBody ? contentEncoding : fc.constant(undefined),
    body: hasBody
      ? bodySpec(
          // A handler without a body mostly gets `{}` or nothing, so that its success is reached.
          route.body ?? emptyBody,
          Object.keys(route.body?.optional ?? {}).includes('message') ? 'message' : route.template.endsWith('documents') ? 'content' : 'name',
        )
      : sometimes(bodySpec(undefined, 'x'), 5),
    requestId,
    idempotency: sometimes(idempotencySpec, route === CREATE_LEAD ? 35 : IDEMPOTENT_TEMPLATES.has(route.template) ? 20 : 3),
    retry: sometimes(fc.constantFrom('same' as const, 'reordered' as const), 40),
    headers: extraHeaders,
  });
}

const anyPathRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'),
  route: fc.constant(undefined),
  path: fc.oneof(
    fc.constantFrom(...ALL_ROUTES).chain(routePath),
    fc
      .tuple(
        fc.constantFrom('', '/api', '/api/v1', '/api/v2', '/admin/v1', '/admin/v1/tenants', '/API/V1', '//api/v1', '/health', '/api/v1/leads/{{own.lead}}'),
        fc.array(pathSegment(OWN_IDS), { maxLength: 3 }),
        fc.boolean(),
      )
      .map(([prefix, segments, slash]) => `${prefix}/${segments.join('/')}${slash ? '/' : ''}`),
  ),
  query: fc.oneof(fc.constant(''), queryString(QUERY_KNOWN)),
  key: keySpec,
  token: sometimes(tokenSpec, 50),
  user: fc.constant(undefined),
  contentType,
  encoding: contentEncoding,
  body: sometimes(bodySpec(undefined, 'name'), 60),
  requestId,
  idempotency: sometimes(idempotencySpec, 10),
  retry: fc.constant(undefined),
  headers: extraHeaders,
});

// ---------------------------------------------------------------------------------------------
// Known product bugs. Each is pinned by an `it.failing` test at the end of this file; the fuzz
// still sends these inputs and checks everything else about the answer, and tolerates only the
// deviation named here. Remove an entry once its `it.failing` test starts passing. (None open: the
// eight bugs this fuzz found are fixed and their tests at the end now pass.)
// ---------------------------------------------------------------------------------------------

interface Wire {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** The bytes sent, and the JSON text before any Content-Encoding. */
  body?: Buffer;
  text?: string;
  bytes: number;
}

const KNOWN_BUGS: { id: string; deviation: '500' | 'no-request-id' | 'unknown-field-accepted'; applies: (request: FuzzRequest, wire: Wire) => boolean }[] = [];
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const toleratedCounts = new Map<string, number>();

function tolerated(deviation: string, request: FuzzRequest, wire: Wire): boolean {
  if (STRICT) return false;
  const bug = KNOWN_BUGS.find((candidate) => candidate.deviation === deviation && candidate.applies(request, wire));
  if (bug) toleratedCounts.set(bug.id, (toleratedCounts.get(bug.id) ?? 0) + 1);
  return !!bug;
}

/** The paths an OpenAPI template matches (a trailing slash too, as Express serves it). */
function templatePattern(template: string): RegExp {
  return new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

describe('Fuzzing every endpoint over HTTP', () => {
  let t: TestApp;
  let port: number;
  const fixtures: Record<string, string> = {};
  const keys: Record<KeyName, string> = {} as Record<KeyName, string>;
  const tenantOfKey: Partial<Record<KeyName, string>> = {};
  const trackedTenants: string[] = [];
  const initialLeads = new Map<string, number>();
  const createdLeads = new Map<string, number>();
  /** Leads deleted per tenant (204 to DELETE /api/v1/leads/:id). */
  const deletedLeads = new Map<string, number>();
  const statusCounts = new Map<number, number>();
  /** Routes that answered a success at least once (FUZZ_SUMMARY lists the ones that never did). */
  const succeeded = new Set<string>();
  /** The first successful answer per tenant and Idempotency-Key: what a retry must replay. */
  const idempotentAnswers = new Map<string, { text: string; location: unknown }>();
  let freshKeys = 0;
  let replays = 0;
  let requestsSent = 0;
  let fuzzMs = 0;
  const contract = OpenApiContract.committed();
  /** The team tenant's members by role, several each, taken in turn: a user may send 600 requests a minute. */
  const pools = {} as Record<Role, TestUser[]>;
  let poolTurn = 0;
  /** The signed-in user of the /auth/v1 session routes (logged in again when the fuzz logs it out). */
  let self: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;

    const own = await createTenant(t, { plan: 'enterprise' });
    const foreign = await createTenant(t, { plan: 'enterprise' });
    const free = await createTenant(t, { plan: 'free' });
    const sandbox = await createTenant(t, { plan: 'enterprise' });
    const sandboxFree = await createTenant(t, { plan: 'free' });
    trackedTenants.push(own.id, foreign.id, free.id, sandbox.id, sandboxFree.id);

    keys.own = own.key;
    keys.foreign = foreign.key;
    keys.free = free.key;
    keys.ownRead = (await createKey(t, own.id, { scopes: ['bots:read', 'leads:read'] })).key;
    keys.ownPublic = (await createKey(t, own.id, { type: 'public' })).key;
    const deleted = await createKey(t, own.id);
    expect((await t.admin().delete(`/admin/v1/tenants/${own.id}/api-keys/${deleted.id}`)).status).toBe(204);
    keys.deleted = deleted.key;
    Object.assign(tenantOfKey, { own: own.id, ownRead: own.id, ownPublic: own.id, foreign: foreign.id, free: free.id, deleted: own.id });

    const ownBot = await createBot(t, own.id);
    const ownConversation = await recordConversation(t, own.id, ownBot.id, { status: 'ended', lead: { name: 'Widget Lead', email: 'widget@example.com' } });
    const foreignBot = await createBot(t, foreign.id);
    const foreignConversation = await recordConversation(t, foreign.id, foreignBot.id);
    const sandboxBot = await createBot(t, sandbox.id);
    Object.assign(fixtures, {
      'own.bot': ownBot.id,
      'own.inactiveBot': (await createBot(t, own.id, { isActive: false })).id,
      'own.conversation': ownConversation.id,
      'own.widgetLead': ownConversation.leadId!,
      'own.lead': (await createLead(t, own.key, { botId: ownBot.id, tags: ['seed'] })).id,
      'own.lead2': (await createLead(t, own.key)).id,
      'own.lead3': (await createLead(t, own.key)).id,
      'own.doomedLead': (await createLead(t, own.key)).id,
      'own.doomedLead2': (await createLead(t, own.key)).id,
      'own.liveConversation': (await recordConversation(t, own.id, ownBot.id)).id,
      'own.apiConversation': (await t.http().post('/api/v1/conversations').set('X-API-Key', own.key).send({ botId: ownBot.id }).expect(201)).body.conversation
        .id,
      'own.endingConversation': (await recordConversation(t, own.id, ownBot.id)).id,
      'own.doomedConversation': (await recordConversation(t, own.id, ownBot.id)).id,
      'own.doomedConversation2': (await recordConversation(t, own.id, ownBot.id)).id,
      'foreign.bot': foreignBot.id,
      'foreign.conversation': foreignConversation.id,
      'foreign.lead': (await createLead(t, foreign.key)).id,
      'sandbox.tenant': sandbox.id,
      'sandbox.slug': sandbox.slug,
      'sandbox.bot': sandboxBot.id,
      'sandbox.key': (await createKey(t, sandbox.id)).id,
      'sandbox.key2': (await createKey(t, sandbox.id)).id,
      'sandboxFree.tenant': sandboxFree.id,
      'sandboxFree.bot': (await createBot(t, sandboxFree.id)).id,
    });
    const webhookOf = async (tenantId: string) => {
      const created = await t
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', tenantId === own.id ? own.key : foreign.key)
        .send({ url: 'https://hooks.example.com/fixture', events: ['*'] });
      expect(created.status).toBe(201);
      const test = await t
        .http()
        .post(`/api/v1/webhooks/${created.body.webhook.id}/test`)
        .set('X-API-Key', tenantId === own.id ? own.key : foreign.key);
      expect(test.status).toBe(202);
      return { webhook: created.body.webhook.id as string, delivery: test.body.delivery.id as string };
    };
    const [ownWebhook, foreignWebhook] = [await webhookOf(own.id), await webhookOf(foreign.id)];
    Object.assign(fixtures, {
      'own.webhook': ownWebhook.webhook,
      'own.delivery': ownWebhook.delivery,
      'own.webhook2': (await webhookOf(own.id)).webhook,
      'foreign.webhook': foreignWebhook.webhook,
      'foreign.delivery': foreignWebhook.delivery,
    });
    const documentOf = async (key: string, botId: string) =>
      (await t.http().post(`/api/v1/bots/${botId}/documents`).set('X-API-Key', key).send({ title: 'Fixture', content: 'Fixture text.' }).expect(201)).body
        .document.id as string;
    Object.assign(fixtures, {
      'own.document': await documentOf(own.key, ownBot.id),
      'own.document2': await documentOf(own.key, ownBot.id),
      'foreign.document': await documentOf(foreign.key, foreignBot.id),
    });
    for (const [name, key] of Object.entries(keys)) fixtures[`key.${name}`] = key;
    const erasureOf = async (key: string) =>
      (await t.http().post('/api/v1/privacy/erasures').set('X-API-Key', key).send({ email: NOBODY[0] }).expect(202)).body.erasure.id as string;
    Object.assign(fixtures, { 'own.erasure': await erasureOf(own.key), 'foreign.erasure': await erasureOf(foreign.key) });

    // The dashboard's users: a team tenant with members of every role, and the rows their routes reach.
    const teamOwner = await signUp(t, { tenantName: 'Fuzz Team' });
    const team = teamOwner.tenantId;
    expect((await t.admin().patch(`/admin/v1/tenants/${team}`).send({ plan: 'enterprise' })).status).toBe(200);
    trackedTenants.push(team);
    pools.owner = [teamOwner, await addMember(t, teamOwner, 'owner'), await addMember(t, teamOwner, 'owner')];
    for (const role of ['admin', 'agent', 'viewer'] as const)
      pools[role] = [await addMember(t, teamOwner, role), await addMember(t, teamOwner, role), await addMember(t, teamOwner, role)];
    const asOwner = asUser(t, teamOwner.cookie, team);
    const invite = async (as = asOwner) =>
      (
        await as
          .post('/api/v1/invitations')
          .send({ email: newEmail('fuzz-invited'), role: 'viewer' })
          .expect(201)
      ).body as { invitation: { id: string }; acceptUrl: string };
    const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
    const foreignUser = await signUp(t, { tenantName: 'Fuzz Foreign' });
    const [first, second, third, withdrawn] = [await invite(), await invite(), await invite(), await invite()];
    await asOwner.delete(`/api/v1/invitations/${withdrawn.invitation.id}`).expect(204);
    const resetUser = await signUp(t, { tenantName: 'Fuzz Reset' });
    const resetToken = async () => tokenOf((await t.admin().post(`/admin/v1/users/${resetUser.id}/password-resets`).expect(201)).body.resetUrl);
    const loginUser = await signUp(t, { tenantName: 'Fuzz Login' });
    self = await signUp(t, { tenantName: 'Fuzz Self' });
    await logIn(t, self.email, self.password);
    const sessionIds = async (user: TestUser) =>
      (await asUser(t, user.cookie, null).get('/auth/v1/sessions').expect(200)).body.sessions as { id: string; current: boolean }[];
    const teamBot = await createBot(t, team);
    Object.assign(fixtures, {
      'team.conversation': (await recordConversation(t, team, teamBot.id)).id,
      'team.tenant': team,
      'team.target': (await addMember(t, teamOwner, 'viewer')).id,
      'team.targetTwo': (await addMember(t, teamOwner, 'agent')).id,
      'team.invitation': (await invite()).invitation.id,
      'team.invitationTwo': (await invite()).invitation.id,
      'team.key': (await createKey(t, team)).id,
      'team.keyTwo': (await createKey(t, team)).id,
      'team.bot': (await createBot(t, team)).id,
      'team.owner': teamOwner.id,
      'team.agent': pools.agent[0].id,
      'foreign.user': foreignUser.id,
      'foreign.invitation': (await invite(asUser(t, foreignUser.cookie, foreignUser.tenantId))).invitation.id,
      'foreign.key': own.keyId,
      'foreign.session': (await sessionIds(foreignUser))[0].id,
      'invitation.first': tokenOf(first.acceptUrl),
      'invitation.second': tokenOf(second.acceptUrl),
      'invitation.third': tokenOf(third.acceptUrl),
      'invitation.withdrawn': tokenOf(withdrawn.acceptUrl),
      'reset.user': resetUser.id,
      'reset.email': resetUser.email,
      'reset.first': await resetToken(),
      'reset.second': await resetToken(),
      'reset.third': await resetToken(),
      'login.email': loginUser.email,
      'login.password': loginUser.password,
      'self.password': self.password,
      'self.otherSession': (await sessionIds(self)).find((session) => !session.current)!.id,
    });
    for (const row of await snapshotRows()) initialLeads.set(row.id, row.leads);
  });

  afterAll(async () => {
    if (SUMMARY) {
      const statuses = [...statusCounts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}:${count}`)
        .join(' ');
      const known = [...toleratedCounts.entries()].map(([id, count]) => `${id}:${count}`).join(' ') || 'none';
      const neverSucceeded =
        ALL_ROUTES.map(routeId)
          .filter((route) => !succeeded.has(route))
          .join(', ') || 'none';
      console.log(
        `fuzz: seed ${SEED}, ${RUNS} runs per property, ${requestsSent} requests in ${(fuzzMs / 1000).toFixed(1)} s (${t.connection.kind}); statuses ${statuses}; ${replays} idempotent replays; tolerated known bugs ${known}; routes without a success: ${neverSucceeded}`,
      );
    }
    await t?.close();
  });

  // -------------------------------------------------------------------------------------------
  // Wire format
  // -------------------------------------------------------------------------------------------

  const resolveTokens = (text: string) =>
    text.replace(/\{\{([A-Za-z.]+)(:upper)?\}\}/g, (match, name: string, upper?: string) => {
      const value = fixtures[name];
      if (value === undefined) return match;
      return upper ? value.toUpperCase() : value;
    });

  function keyHeader(spec: KeySpec): string | string[] | undefined {
    const own = keys.own;
    switch (spec.kind) {
      case 'none':
        return undefined;
      case 'fixture': {
        const key = keys[spec.name];
        if (spec.variant === 'padded') return ` ${key}\t`;
        if (spec.variant === 'lower') return key.toLowerCase();
        if (spec.variant === 'twice') return [key, key];
        return key;
      }
      case 'prefix':
        return own.slice(0, spec.length % own.length);
      case 'suffix':
        return own + spec.junk;
      case 'flip': {
        const at = spec.at % own.length;
        const replacement = own[at] === 'x' ? 'y' : 'x';
        return own.slice(0, at) + replacement + own.slice(at + 1);
      }
      case 'wellFormed': {
        const body = `svc_${spec.type}_${spec.random}`;
        let value = BigInt(crc32(body));
        let checksum = '';
        const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        for (let i = 0; i < 6; i++) {
          checksum = base62[Number(value % 62n)] + checksum;
          value /= 62n;
        }
        return body + checksum;
      }
      case 'raw':
        return resolveTokens(spec.value);
    }
  }

  /** The headers of a dashboard user's request (undefined: left out, over any extra header of that name). */
  function userHeaders(route: RouteDef, spec: UserSpec): Record<string, string | string[] | undefined> {
    const kind = route.user!.kind;
    const pool = pools[spec.role];
    const cookie = kind === 'session' ? self.cookie : pool[poolTurn++ % pool.length].cookie;
    const key = kind === 'tenant' && spec.key ? keyHeader(spec.key) : undefined;
    return {
      Cookie: kind === 'signIn' || spec.cookie === 'none' ? undefined : spec.cookie === 'forged' ? `svc_session=${'f'.repeat(43)}` : cookie,
      Origin: spec.origin === 'own' ? ORIGIN : spec.origin === 'foreign' ? 'https://evil.example' : undefined,
      'X-Tenant-Id':
        kind !== 'tenant' || spec.tenant === 'none'
          ? undefined
          : spec.tenant === 'team'
            ? fixtures['team.tenant']
            : spec.tenant === 'foreign'
              ? fixtures['sandbox.tenant']
              : 'not-a-tenant',
      'X-API-Key': key === undefined ? undefined : Array.isArray(key) ? key : key.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'),
    };
  }

  function materializeBody(spec: BodySpec): { text?: string; raw: Buffer } {
    switch (spec.kind) {
      case 'json': {
        const text = resolveTokens(spec.text);
        return { text, raw: Buffer.from(text, 'utf8') };
      }
      case 'bytes':
        return { raw: Buffer.from(spec.hex, 'hex') };
      case 'sized': {
        // Exactly `target` bytes; a `name` field is then sent twice (the last one counts).
        const head = `{"name":"Sized","email":"sized@example.com","${spec.field}":"`;
        const tail = '"}';
        const budget = Math.max(0, spec.target - Buffer.byteLength(head + tail));
        const unit = Buffer.byteLength(spec.char);
        const text = head + spec.char.repeat(Math.floor(budget / unit)) + 'a'.repeat(budget % unit) + tail;
        return { text, raw: Buffer.from(text, 'utf8') };
      }
      case 'deep': {
        const [open, close] = spec.nest === 'array' ? ['[', ']'] : ['{"a":', '}'];
        const text = `{"name":"Deep","email":"deep@example.com","${spec.field}":${open.repeat(spec.depth)}${spec.nest === 'array' ? '' : '1'}${close.repeat(spec.depth)}}`;
        return { text, raw: Buffer.from(text, 'utf8') };
      }
    }
  }

  function toWire(request: FuzzRequest): Wire {
    const headers: Record<string, string | string[]> = {};
    const sanitize = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
    for (const [name, value] of request.headers) headers[name] = sanitize(resolveTokens(value));
    if (request.key) {
      const value = keyHeader(request.key);
      if (value !== undefined) headers['X-API-Key'] = Array.isArray(value) ? value.map(sanitize) : sanitize(value);
    }
    if (request.user) Object.assign(headers, userHeaders(ROUTES.get(request.route!)!, request.user));
    for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
    if (request.token) {
      if (request.token.kind === 'valid') headers.Authorization = `Bearer ${ADMIN_TOKEN}`;
      else if (request.token.kind !== 'none') headers.Authorization = sanitize(resolveTokens(request.token.value));
    }
    if (request.requestId !== undefined) headers['X-Request-Id'] = sanitize(request.requestId);
    if (request.idempotency) {
      const spec = request.idempotency;
      headers['Idempotency-Key'] = spec.kind === 'fresh' ? `fz-fresh-${SEED}-${++freshKeys}` : spec.kind === 'twice' ? [spec.value, spec.value] : spec.value;
    }
    if (request.contentType !== undefined) headers['Content-Type'] = sanitize(request.contentType);
    let body: Buffer | undefined;
    let text: string | undefined;
    let bytes = 0;
    if (request.body) {
      const materialized = materializeBody(request.body);
      text = materialized.text;
      body = materialized.raw;
      bytes = body.length;
      if (request.encoding) {
        headers['Content-Encoding'] = request.encoding.name;
        if (request.encoding.valid)
          body = request.encoding.name === 'gzip' ? gzipSync(body) : request.encoding.name === 'deflate' ? deflateSync(body) : brotliCompressSync(body);
      }
      // Node's client frames a body with Content-Length by itself only for POST, PUT and PATCH.
      headers['Content-Length'] = String(body.length);
    }
    return { method: request.method, path: resolveTokens(request.path + request.query), headers, body, text, bytes };
  }

  function send(wire: Wire): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let settled = false;
      let lastError: Error | undefined;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const request = http.request({ host: '127.0.0.1', port, method: wire.method, path: wire.path, headers: wire.headers, agent: false });
      const timer = setTimeout(() => {
        finish(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
        request.destroy();
      }, ANSWER_TIMEOUT_MS);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          finish(() =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started }),
          ),
        );
        response.on('error', (error) => finish(() => reject(error)));
      });
      // The server may answer (413) before reading the whole body and close: a write error then
      // is not a failure as long as the answer arrives.
      request.on('error', (error) => {
        lastError = error;
      });
      request.on('close', () => setTimeout(() => finish(() => reject(lastError ?? new Error('connection closed without an answer'))), 50));
      request.end(wire.body);
    });
  }

  // -------------------------------------------------------------------------------------------
  // Database observations
  // -------------------------------------------------------------------------------------------

  interface TenantRow {
    id: string;
    leads: number;
    [column: string]: unknown;
  }

  async function snapshotRows(): Promise<TenantRow[]> {
    const ids = trackedTenants.map((id) => `'${id}'`).join(',');
    const rows = await t.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`
      SELECT t.id::text AS id, t.plan::text AS plan, t.name, t."updatedAt"::text AS "updatedAt",
        (SELECT count(*)::int FROM "Lead" x WHERE x."tenantId" = t.id) AS leads,
        (SELECT max(x."updatedAt")::text FROM "Lead" x WHERE x."tenantId" = t.id) AS "leadsUpdatedAt",
        (SELECT string_agg(s, ',') FROM (SELECT x.status::text || ':' || count(*) AS s FROM "Lead" x WHERE x."tenantId" = t.id GROUP BY x.status ORDER BY 1) q) AS "leadStatuses",
        (SELECT count(*)::int FROM "Bot" x WHERE x."tenantId" = t.id) AS bots,
        (SELECT max(x."updatedAt")::text FROM "Bot" x WHERE x."tenantId" = t.id) AS "botsUpdatedAt",
        (SELECT count(*)::int FROM "ApiKey" x WHERE x."tenantId" = t.id AND x."deletedAt" IS NULL) AS keys,
        (SELECT count(*)::int FROM "KnowledgeDocument" x WHERE x."tenantId" = t.id) AS documents,
        (SELECT count(*)::int FROM "Conversation" x WHERE x."tenantId" = t.id) AS conversations,
        (SELECT string_agg(s, ',') FROM (SELECT x.id::text || ':' || x.status::text || ':' || coalesce(x."assigneeId"::text, '-') AS s FROM "Conversation" x WHERE x."tenantId" = t.id ORDER BY 1) q) AS "conversationStates",
        (SELECT count(*)::int FROM "PrivacyErasure" x WHERE x."tenantId" = t.id) AS "privacyErasures",
        (SELECT count(*)::int FROM "Message" x WHERE x."tenantId" = t.id) AS messages,
        (SELECT count(*)::int FROM "AuditEvent" x WHERE x."tenantId" = t.id) AS "auditEvents",
        (SELECT count(*)::int FROM "IdempotencyRecord" x WHERE x."tenantId" = t.id) AS "idempotencyRecords",
        (SELECT count(*)::int FROM "WebhookEndpoint" x WHERE x."tenantId" = t.id) AS "webhooks",
        (SELECT max(x."updatedAt")::text FROM "WebhookEndpoint" x WHERE x."tenantId" = t.id) AS "webhooksUpdatedAt",
        (SELECT count(*)::int FROM "WebhookDelivery" x WHERE x."tenantId" = t.id) AS "webhookDeliveries",
        (SELECT string_agg(s, ',') FROM (SELECT x."userId"::text || ':' || x.role::text AS s FROM "Membership" x WHERE x."tenantId" = t.id ORDER BY 1) q) AS memberships,
        (SELECT count(*)::int FROM "Invitation" x WHERE x."tenantId" = t.id AND x."deletedAt" IS NULL AND x."acceptedAt" IS NULL) AS invitations
      FROM "Tenant" t WHERE t.id IN (${ids}) ORDER BY t.id`);
    return rows as TenantRow[];
  }

  async function slugExists(slug: unknown): Promise<boolean | undefined> {
    if (typeof slug !== 'string') return undefined;
    if (slug.includes('\u0000')) return false; // PostgreSQL text cannot hold U+0000
    return (await t.prisma.tenant.count({ where: { slug } })) > 0;
  }

  async function leadStatus(id: string | undefined): Promise<LeadStatus | undefined> {
    if (!id || !UUID.test(id)) return undefined;
    const lead = await t.prisma.lead.findFirst({ where: { id }, select: { status: true } });
    return (lead?.status as LeadStatus | undefined) ?? undefined;
  }

  // -------------------------------------------------------------------------------------------
  // The oracle
  // -------------------------------------------------------------------------------------------

  /** What the contract says a key or token gets on an existing route, before any input is read. */
  function refusal(request: FuzzRequest): { status: number; code: string } | null | undefined {
    const route = request.route ? ROUTES.get(request.route) : undefined;
    if (!route) return undefined;
    if (route.user) return userRefusal(route.user, route.method, request.user!);
    if (route.admin) {
      if (!request.token || request.token.kind === 'ambiguous') return undefined;
      return request.token.kind === 'valid' ? null : { status: 401, code: 'UNAUTHORIZED' };
    }
    const key = request.key!;
    if (key.kind !== 'fixture' || key.name === 'deleted' || key.variant === 'lower' || key.variant === 'twice') return { status: 401, code: 'INVALID_API_KEY' };
    if (route.widget) return key.name === 'ownPublic' ? null : { status: 403, code: 'INSUFFICIENT_SCOPE' };
    if (key.name === 'free') return { status: 403, code: 'PLAN_UPGRADE_REQUIRED' };
    const scopes: Record<Exclude<KeyName, 'free' | 'deleted'>, string[] | 'all' | 'none'> = {
      own: 'all',
      foreign: 'all',
      ownRead: ['bots:read', 'leads:read'],
      ownPublic: 'none',
    };
    const granted = scopes[key.name];
    if (route.scope === null) return null;
    if (granted === 'all' || (Array.isArray(granted) && granted.includes(route.scope!))) return null;
    return { status: 403, code: 'INSUFFICIENT_SCOPE' };
  }

  /** The contract's order of checks for a user (API_DECISIONS part 3): session, CSRF, membership, role. */
  function userRefusal(rule: NonNullable<RouteDef['user']>, method: string, spec: UserSpec): { status: number; code: string } | null {
    const unsafe = method !== 'GET';
    if (rule.kind === 'signIn') return spec.origin === 'own' ? null : { status: 403, code: 'CSRF_REJECTED' };
    // X-API-Key makes it a key's request, which a users-only route refuses after checking the key.
    if (rule.kind === 'tenant' && spec.key && spec.key.kind !== 'none') {
      const key = spec.key;
      if (key.kind !== 'fixture' || key.name === 'deleted' || key.variant === 'lower' || key.variant === 'twice')
        return { status: 401, code: 'INVALID_API_KEY' };
      return { status: 403, code: 'INSUFFICIENT_SCOPE' };
    }
    if (spec.cookie !== 'valid') return { status: 401, code: 'INVALID_SESSION' };
    if (unsafe && spec.origin !== 'own') return { status: 403, code: 'CSRF_REJECTED' };
    if (rule.kind === 'session') return null;
    if (spec.tenant === 'none' || spec.tenant === 'malformed') return { status: 400, code: 'TENANT_REQUIRED' };
    if (spec.tenant === 'foreign') return { status: 403, code: 'NOT_A_MEMBER' };
    if (rule.role === 'manager' && (spec.role === 'agent' || spec.role === 'viewer')) return { status: 403, code: 'INSUFFICIENT_ROLE' };
    if (rule.scopes?.some((scope) => !roleHolds(spec.role, scope))) return { status: 403, code: 'INSUFFICIENT_ROLE' };
    return null;
  }

  function parsedBody(wire: Wire): unknown {
    try {
      return wire.text === undefined ? undefined : JSON.parse(wire.text);
    } catch {
      return undefined;
    }
  }

  /**
   * String values of at least 12 characters that were sent: no error message may repeat them
   * (the contract's own vocabulary, which messages list as allowed values, aside).
   */
  function canaries(wire: Wire): string[] {
    const found: string[] = [];
    const query = wire.path.includes('?') ? parseQueryString(wire.path.slice(wire.path.indexOf('?') + 1)) : {};
    const pending: unknown[] = [parsedBody(wire), Object.values(query)];
    while (pending.length) {
      const value = pending.pop();
      if (typeof value === 'string') {
        if (value.trim().length >= 12) found.push(value.trim());
      } else if (Array.isArray(value)) pending.push(...value);
      else if (value && typeof value === 'object') pending.push(...Object.values(value));
    }
    return found.filter((value) => !VOCABULARY.has(value) && !Object.values(fixtures).includes(value));
  }

  async function exercise(request: FuzzRequest): Promise<void> {
    const wire = toWire(request);
    const mutating = wire.method !== 'GET' && wire.method !== 'HEAD';
    const route = request.route ? ROUTES.get(request.route) : undefined;
    const before = mutating ? JSON.stringify(await snapshotRows()) : undefined;
    const body = parsedBody(wire) as Record<string, unknown> | undefined;
    const isCreateTenant = route?.template === '/admin/v1/tenants' && wire.method === 'POST';
    const slug = isCreateTenant && body && typeof body === 'object' ? body.slug : undefined;
    const slugBefore = isCreateTenant ? await slugExists(slug) : undefined;
    const leadId = route === UPDATE_LEAD ? wire.path.split('?')[0].split('/').pop() : undefined;
    const statusBefore = route === UPDATE_LEAD ? await leadStatus(leadId) : undefined;

    let answer: Answer;
    try {
      answer = await send(wire);
    } catch (error) {
      throw new Error(`${wire.method} ${wire.path.slice(0, 300)}: ${(error as Error).message}`, { cause: error });
    }
    requestsSent++;
    statusCounts.set(answer.status, (statusCounts.get(answer.status) ?? 0) + 1);
    if (request.route && answer.status < 300) succeeded.add(request.route);
    const problems: string[] = [];
    const fail = (problem: string) => problems.push(problem);

    // Status. `If-None-Match: *` on a GET of an existing resource is answered 304 without a body,
    // as RFC 9110 (13.1.2) says; the contract is silent on conditional requests.
    const notModified =
      answer.status === 304 && (wire.method === 'GET' || wire.method === 'HEAD') && String(wire.headers['If-None-Match'] ?? '').trim() === '*';
    if (!ALLOWED_STATUSES.has(answer.status) && !notModified && !(answer.status === 500 && tolerated('500', request, wire)))
      fail(`status ${answer.status} is not allowed`);

    // Headers
    const requestIdHeader = answer.headers['x-request-id'];
    const incoming = request.requestId?.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').replace(/^[\t ]+|[\t ]+$/g, '');
    const noRequestIdTolerated = () => tolerated('no-request-id', request, wire);
    if (typeof requestIdHeader !== 'string') {
      if (!noRequestIdTolerated()) fail('no X-Request-Id header');
    } else if (incoming !== undefined && VALID_REQUEST_ID.test(incoming)) {
      if (requestIdHeader !== incoming) fail(`X-Request-Id ${requestIdHeader} does not echo the well-formed ${incoming}`);
    } else if (!UUID.test(requestIdHeader)) fail(`X-Request-Id ${requestIdHeader} is not a fresh UUID`);
    if (answer.headers['x-content-type-options'] !== 'nosniff') fail('no X-Content-Type-Options: nosniff');
    if (answer.headers['cache-control'] !== 'no-store') fail('no Cache-Control: no-store');
    if (answer.headers['x-powered-by'] !== undefined) fail('X-Powered-By is sent');

    // Body
    let json: unknown;
    // A success the document gives no content (204, and the 202 of a password-reset request) has no body.
    const documented =
      route && wire.method === route.method && answer.status < 300
        ? (contract.operation(route.method, route.template).responses[String(answer.status)] as { content?: unknown } | undefined)
        : undefined;
    // A route whose success is not JSON (the lead export), also when an arbitrary path reaches it.
    const producer = (route && wire.method === route.method ? [route] : ALL_ROUTES).find(
      (candidate) => candidate.produces && candidate.method === wire.method && templatePattern(candidate.template).test(wire.path.split('?')[0]),
    );
    const contentless = documented !== undefined && !('$ref' in documented) && documented.content === undefined;
    if (answer.status === 204 || contentless || notModified || wire.method === 'HEAD') {
      if (answer.text !== '') fail(`a ${answer.status} answer to ${wire.method} has a body`);
    } else if (answer.status < 300 && producer) {
      if (String(answer.headers['content-type']).split(';')[0] !== producer.produces)
        fail(`content type ${answer.headers['content-type']} is not ${producer.produces}`);
    } else {
      if (!/^application\/json(;|$)/i.test(String(answer.headers['content-type'] ?? ''))) fail(`content type ${answer.headers['content-type']} is not JSON`);
      try {
        json = JSON.parse(answer.text);
      } catch {
        fail('the body is not JSON');
      }
    }
    if (answer.status >= 400 && wire.method !== 'HEAD' && json !== undefined) {
      const error = (json as { error?: Record<string, unknown> }).error;
      const keysOf = (value: unknown) => (value && typeof value === 'object' ? Object.keys(value).sort().join(',') : String(value));
      if (keysOf(json) !== 'error' || !error) fail(`not the error envelope: ${answer.text.slice(0, 300)}`);
      else {
        const expectedKeys = error.code === 'VALIDATION_ERROR' ? 'code,details,message,requestId,status' : 'code,message,requestId,status';
        if (keysOf(error) !== expectedKeys && !noRequestIdTolerated()) fail(`envelope fields ${keysOf(error)}, expected ${expectedKeys}`);
        if (error.status !== answer.status) fail(`error.status ${String(error.status)} differs from the status ${answer.status}`);
        if (!(CODES_BY_STATUS[answer.status] ?? []).includes(String(error.code))) fail(`code ${String(error.code)} does not belong to status ${answer.status}`);
        if (typeof error.message !== 'string' || !error.message.trim()) fail('error.message is empty');
        if ('requestId' in error && error.requestId !== requestIdHeader)
          fail(`error.requestId ${String(error.requestId)} differs from X-Request-Id ${String(requestIdHeader)}`);
        if ('details' in error) {
          const details = error.details;
          if (
            !Array.isArray(details) ||
            !details.length ||
            !details.every((detail) => keysOf(detail) === 'field,message' && typeof detail.field === 'string' && typeof detail.message === 'string')
          ) {
            fail(`details are not a non-empty list of {field, message}: ${JSON.stringify(details).slice(0, 300)}`);
          }
        }
        const messages = [error.message, ...(Array.isArray(error.details) ? error.details.map((detail: { message?: unknown }) => detail.message) : [])].map(
          String,
        );
        for (const canary of canaries(wire)) {
          if (messages.some((message) => message.includes(canary))) fail(`an error message repeats the submitted value ${JSON.stringify(canary.slice(0, 60))}`);
        }
      }
    }

    // The committed OpenAPI document (documented operations; not HEAD, which has no body).
    if (route && wire.method === route.method && !notModified && problems.length === 0 && decodes(wire.path.split('?')[0])) {
      try {
        contract.expectMatches({ status: answer.status, headers: answer.headers, text: answer.text } as unknown as Response, route.method, route.template);
      } catch (error) {
        fail((error as Error).message.slice(0, 1_500));
      }
    }

    // Oracles where the contract fixes the answer.
    const routeServed = route && wire.method === route.method && decodes(wire.path.split('?')[0]);
    const expectedRefusal = routeServed ? refusal(request) : undefined;
    if (expectedRefusal) {
      const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
      if (answer.status !== expectedRefusal.status || code !== expectedRefusal.code)
        fail(`expected ${expectedRefusal.status} ${expectedRefusal.code} for this key or token, got ${answer.status} ${String(code)}`);
    }
    if (routeServed && expectedRefusal === null) {
      const hasBody = BODY_METHODS.includes(wire.method);
      const sentBytes = hasBody && wire.body ? wire.body.length : 0;
      // As the server sees it: Node trims the optional whitespace around a header value.
      const sentType = wire.headers['Content-Type'] === undefined ? undefined : String(wire.headers['Content-Type']).replace(/^[\t ]+|[\t ]+$/g, '');
      const jsonType = sentType !== undefined && typeIs.is(sentType, ['application/json']) !== false;
      // 415: a body that is not declared as application/json.
      if (sentBytes > 0 && !jsonType && answer.status !== 415)
        fail(`a body sent as ${JSON.stringify(wire.headers['Content-Type'])} was answered ${answer.status}, not 415`);
      // 413 exactly when the (decoded) body is over 64 KiB, unless the type was refused first.
      const encodingUnderstood = !request.encoding || request.encoding.name === 'identity' || request.encoding.valid;
      if (hasBody && jsonType && encodingUnderstood && sentBytes > 0) {
        const limit = route.bodyLimit ?? BODY_LIMIT;
        const over = wire.bytes > limit;
        if (over && answer.status !== 413 && answer.status !== 415) fail(`a body of ${wire.bytes} bytes was answered ${answer.status}, not 413`);
        if (!over && answer.status === 413) fail(`a body of ${wire.bytes} bytes (at most ${limit}) was answered 413`);
      }
      // Unknown body fields (API routes: their bodies are flat; a handler without a body takes none).
      if (
        (!route.admin || !route.body) &&
        hasBody &&
        jsonType &&
        encodingUnderstood &&
        wire.bytes <= (route.bodyLimit ?? BODY_LIMIT) &&
        body &&
        typeof body === 'object' &&
        !Array.isArray(body)
      ) {
        const allowed = [...Object.keys(route.body?.required ?? {}), ...Object.keys(route.body?.optional ?? {})];
        const unknown = Object.keys(body).filter((name) => !allowed.includes(name));
        if (unknown.length && ![400, 415].includes(answer.status) && answer.status < 500) {
          const onlyPrototypeNames = unknown.every((name) => PROTOTYPE_NAMES.has(name));
          if (!(onlyPrototypeNames && tolerated('unknown-field-accepted', request, wire)))
            fail(`body fields ${JSON.stringify(unknown)} were accepted (${answer.status})`);
        }
      }
      // Unknown or repeated query parameters: the routes that read a query declare theirs (the
      // admin ones aside, whose values are not checked for repeats here); any other route reads none.
      if (!route.admin || !route.query) {
        const query = wire.path.includes('?') ? parseQueryString(wire.path.slice(wire.path.indexOf('?') + 1)) : {};
        const declared = route.query ?? [];
        const offending = Object.keys(query).filter((name) => !declared.includes(name) || Array.isArray(query[name]));
        // The body is read (400, 413, 415) before the query is validated; a 500 was judged above.
        const bodyRefused = [400, 413, 415].includes(answer.status) || answer.status >= 500;
        if (offending.length && !bodyRefused) {
          const onlyPrototypeNames = offending.every((name) => PROTOTYPE_NAMES.has(name));
          if (!(onlyPrototypeNames && tolerated('unknown-field-accepted', request, wire)))
            fail(`query parameters ${JSON.stringify(offending)} were accepted (${answer.status})`);
        }
      }
    }

    // The session user's password and session follow what the fuzz did to them.
    if (request.route === 'PATCH /auth/v1/me' && answer.status === 200 && body && typeof body === 'object' && typeof body.password === 'string')
      fixtures['self.password'] = body.password;
    if (request.route === 'DELETE /auth/v1/sessions/current' && answer.status === 204 && request.user?.cookie === 'valid')
      self.cookie = await logIn(t, self.email, fixtures['self.password']);

    // Effects
    if (mutating) {
      const after = JSON.stringify(await snapshotRows());
      if (answer.status >= 400 && after !== before) fail(`an error answer changed stored data:\nbefore ${before}\nafter  ${after}`);
      if (isCreateTenant && answer.status >= 400 && slugBefore === false && (await slugExists(slug)) === true)
        fail(`an error answer created the tenant ${String(slug)}`);
    }
    // Leads created (by any property: the any-path one reaches the same routes).
    const created = (json as { lead?: { id?: unknown; source?: unknown; status?: unknown; conversationId?: unknown } } | undefined)?.lead;
    const imported = (json as { imported?: unknown } | undefined)?.imported;
    const keyTenant = request.key?.kind === 'fixture' ? tenantOfKey[request.key.name] : undefined;
    const idempotencyKey = wire.headers['Idempotency-Key'];
    const recorded = keyTenant && typeof idempotencyKey === 'string' ? idempotentAnswers.get(`${keyTenant} ${idempotencyKey}`) : undefined;
    const replayed = answer.headers['idempotent-replayed'] === 'true';
    if (answer.status === 201 && created) {
      if (!keyTenant) fail('a lead was created with a key that is not valid');
      else if (!replayed) createdLeads.set(keyTenant, (createdLeads.get(keyTenant) ?? 0) + 1);
      if (replayed) replays++;
      if (answer.headers.location !== `/api/v1/leads/${String(created.id)}`)
        fail(`Location ${String(answer.headers.location)} does not name the lead ${String(created.id)}`);
      if (created.source !== 'api' || created.status !== 'new' || created.conversationId !== null)
        fail(`a created lead is not source api, status new, no conversation: ${answer.text.slice(0, 300)}`);
      // Idempotency-Key: a malformed one is refused; a used one replays the first answer exactly.
      if (request.idempotency && (request.idempotency.kind === 'invalid' || request.idempotency.kind === 'twice'))
        fail(`a malformed Idempotency-Key ${JSON.stringify(idempotencyKey)} was accepted`);
      if (replayed && (!recorded || recorded.text !== answer.text || recorded.location !== answer.headers.location))
        fail(`Idempotent-Replayed answer differs from the first answer to this key: ${recorded?.text.slice(0, 300)}`);
      if (!replayed && recorded) fail(`a second lead was created with the Idempotency-Key ${JSON.stringify(idempotencyKey)}`);
      if (!replayed && keyTenant && typeof idempotencyKey === 'string')
        idempotentAnswers.set(`${keyTenant} ${idempotencyKey}`, { text: answer.text, location: answer.headers.location });
    } else if (answer.status === 201 && route === IMPORT_LEADS && typeof imported === 'number') {
      if (!keyTenant) fail('leads were imported with a key that is not valid');
      else if (!replayed) createdLeads.set(keyTenant, (createdLeads.get(keyTenant) ?? 0) + imported);
      if (replayed && (!recorded || recorded.text !== answer.text))
        fail(`Idempotent-Replayed import answer differs from the first answer to this key: ${recorded?.text.slice(0, 300)}`);
      if (!replayed && recorded) fail(`a second import was made with the Idempotency-Key ${JSON.stringify(idempotencyKey)}`);
      if (!replayed && keyTenant && typeof idempotencyKey === 'string')
        idempotentAnswers.set(`${keyTenant} ${idempotencyKey}`, { text: answer.text, location: undefined });
    } else if (route && IDEMPOTENT_TEMPLATES.has(route.template) && wire.method === route.method && answer.status < 300 && typeof idempotencyKey === 'string') {
      // An agent's message or an erasure with an Idempotency-Key: a retry replays the first answer.
      if (!keyTenant) fail('an Idempotency-Key answer was recorded for a key that is not valid');
      else if (replayed) {
        replays++;
        if (!recorded || recorded.text !== answer.text)
          fail(`Idempotent-Replayed answer differs from the first answer to this key: ${recorded?.text.slice(0, 300)}`);
      } else if (recorded) fail(`a second ${route.template} was made with the Idempotency-Key ${JSON.stringify(idempotencyKey)}`);
      else idempotentAnswers.set(`${keyTenant} ${idempotencyKey}`, { text: answer.text, location: undefined });
    } else if (replayed) fail(`a ${answer.status} answer says Idempotent-Replayed`);
    // A lead deleted (by any property: the any-path one sends DELETE to every lead path).
    if (wire.method === 'DELETE' && answer.status === 204 && /^\/api\/v1\/leads\/[^/?]+\/?(\?|$)/.test(wire.path)) {
      if (!keyTenant) fail('a lead was deleted with a key that is not valid');
      else deletedLeads.set(keyTenant, (deletedLeads.get(keyTenant) ?? 0) + 1);
    }
    // An erasure the suite asks for must find nobody (NOBODY): its worker would delete rows later.
    const erasure = (json as { erasure?: { counts?: Record<string, unknown> } } | undefined)?.erasure;
    if (answer.status === 202 && erasure?.counts && Object.values(erasure.counts).some((count) => count !== 0))
      fail(`an erasure found data, which its worker will delete under the suite: ${JSON.stringify(erasure.counts)}`);
    const errorCode = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (errorCode === 'IDEMPOTENCY_KEY_REUSED' && !recorded) fail('IDEMPOTENCY_KEY_REUSED for a key that has no stored answer');
    // One request at a time: nothing else can hold the key.
    if (errorCode === 'IDEMPOTENCY_KEY_IN_USE') fail('IDEMPOTENCY_KEY_IN_USE with no other request in flight');
    const conversation = (json as { conversation?: { leadId?: unknown } } | undefined)?.conversation;
    if (answer.status === 201 && conversation?.leadId) {
      const tenantId = wire.path.split('?')[0].split('/')[4].toLowerCase();
      createdLeads.set(tenantId, (createdLeads.get(tenantId) ?? 0) + 1);
    }
    if (route === UPDATE_LEAD && statusBefore && wire.method === 'PATCH') {
      const statusAfter = await leadStatus(leadId);
      const requested = body && typeof body === 'object' && !Array.isArray(body) ? body.status : undefined;
      if (answer.status === 200 || answer.status === 204) {
        if (statusAfter !== (requested ?? statusBefore)) fail(`a ${answer.status} PATCH left the lead ${statusAfter}, requested ${String(requested)}`);
        if (statusAfter !== statusBefore && !MOVES[statusBefore].includes(statusAfter!))
          fail(`the lead moved ${statusBefore} -> ${statusAfter}, which the machine forbids`);
      } else {
        if (statusAfter !== statusBefore) fail(`an error answer moved the lead ${statusBefore} -> ${statusAfter}`);
        if (answer.status === 409 && (typeof requested !== 'string' || requested === statusBefore || MOVES[statusBefore].includes(requested as LeadStatus))) {
          fail(`409 for ${statusBefore} -> ${String(requested)}, which the machine allows`);
        }
      }
    }

    // A retry of a create that got 201 with an Idempotency-Key replays it and stores nothing.
    if (
      !problems.length &&
      request.retry &&
      replayed === false &&
      answer.status === 201 &&
      created &&
      (request.idempotency?.kind === 'fresh' || request.idempotency?.kind === 'pooled')
    ) {
      let retry: Wire = wire;
      if (request.retry === 'reordered' && !request.encoding && body && typeof body === 'object') {
        // Same fields, other order and whitespace: compared after validation, so still a retry.
        const text = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
        retry = {
          ...wire,
          headers: { ...wire.headers, 'Content-Length': String(Buffer.byteLength(text)) },
          body: Buffer.from(text),
          text,
          bytes: Buffer.byteLength(text),
        };
      }
      const beforeRetry = JSON.stringify(await snapshotRows());
      const again = await send(retry);
      requestsSent++;
      if (
        again.status !== 201 ||
        again.headers['idempotent-replayed'] !== 'true' ||
        again.text !== answer.text ||
        again.headers.location !== answer.headers.location
      ) {
        fail(
          `a ${request.retry} retry with the Idempotency-Key was answered ${again.status} (Idempotent-Replayed ${String(again.headers['idempotent-replayed'])}), not the first answer: ${again.text.slice(0, 300)}`,
        );
      } else replays++;
      if (JSON.stringify(await snapshotRows()) !== beforeRetry) fail('a retry with the Idempotency-Key changed stored data');
    }

    if (problems.length) {
      throw new Error(
        `${wire.method} ${wire.path.slice(0, 400)}\nrequest headers ${JSON.stringify(wire.headers).slice(0, 400)}\nbody (${wire.bytes} bytes) ${JSON.stringify((wire.text ?? wire.body?.toString('hex') ?? '').slice(0, 300))}\n=> ${answer.status} ${JSON.stringify(answer.headers).slice(0, 400)}\n${answer.text.slice(0, 500)}\nproblems:\n- ${problems.join('\n- ')}`,
      );
    }
  }

  async function fuzz(arbitrary: fc.Arbitrary<FuzzRequest>, runs: number, examples: FuzzRequest[] = []): Promise<void> {
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(arbitrary, (request) => exercise(request)),
        { seed: SEED, numRuns: runs, endOnFailure: !SHRINK, examples: examples.map((example) => [example] as [FuzzRequest]) },
      );
    } catch (error) {
      (error as Error).message = `Replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (run the whole file; FUZZ_SHRINK=1 to shrink)\n${(error as Error).message}`;
      throw error;
    } finally {
      fuzzMs += Date.now() - started;
    }
  }

  // A route the app serves but this file does not list is never fuzzed: these fail first.
  describe('covers every route of the app', () => {
    const fuzzed = (filter: (route: RouteDef) => boolean) => ALL_ROUTES.filter(filter).map(routeId).sort();

    it('fuzzes every route the app serves, except the public probes and documents', () => {
      expect([...servedRoutes(t.app)].sort()).toEqual([...ALL_ROUTES.map(routeId), ...NOT_FUZZED].sort());
    });

    it('sends bodies to exactly the POST, PUT and PATCH routes of the app, with a body shape for each handler that reads one', () => {
      const served = servedRoutes(t.app).filter((route) => BODY_METHODS.includes(route.split(' ')[0]));
      expect(served.sort()).toEqual(fuzzed((route) => BODY_METHODS.includes(route.method)));
      const reading = controllerRoutes(t.app)
        .filter((route) => route.body)
        .map((route) => toOpenApiRoute(route.route));
      expect(reading.sort()).toEqual(fuzzed((route) => route.body !== undefined));
    });

    it('sends query strings with the documented parameters to exactly the routes whose handler reads the query', () => {
      // The demo page reads its botId and key; it is served outside production only and not fuzzed.
      const reading = controllerRoutes(t.app)
        .filter((route) => route.query)
        .map((route) => toOpenApiRoute(route.route))
        .filter((route) => !NOT_FUZZED.includes(route));
      expect(reading.sort()).toEqual(fuzzed((route) => route.query !== undefined));
      const documented = (route: RouteDef) =>
        (contract.operation(route.method, route.template).parameters ?? [])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => String(parameter.name))
          .sort();
      expect(Object.fromEntries(ALL_ROUTES.map((route) => [routeId(route), [...(route.query ?? [])].sort()]))).toEqual(
        Object.fromEntries(ALL_ROUTES.map((route) => [routeId(route), documented(route)])),
      );
    });
  });

  const base = { query: '', headers: [] as [string, string][] };
  const ownKey: KeySpec = { kind: 'fixture', name: 'own', variant: 'plain' };
  const valid: TokenSpec = { kind: 'valid' };

  it(
    'answers arbitrary reads of /api/v1 (verify, bots, conversations, messages, leads) within the contract',
    () =>
      fuzz(
        fc.oneof(
          { weight: 9, arbitrary: fc.constantFrom(...API_ROUTES).chain((route) => requestFor(route)) },
          { weight: 1, arbitrary: fc.constantFrom(...API_ROUTES).chain((route) => requestFor(route, { method: fc.constant('HEAD') })) },
        ),
        RUNS,
        [
          {
            ...base,
            method: 'GET',
            route: 'GET /api/v1/leads',
            path: '/api/v1/leads',
            query: '?limit=1e400&offset=99999999999999999999&search=%ED%A0%80%E2%80%AE%E2%80%8B%F0%9F%98%80&from=-0',
            key: ownKey,
          },
          { ...base, method: 'GET', route: 'GET /api/v1/leads', path: '/api/v1/leads', query: '?a[]=1&a[b]=c&limit=1&limit=2&search=%00', key: ownKey },
          {
            ...base,
            method: 'GET',
            route: 'GET /api/v1/conversations',
            path: '/api/v1/conversations',
            query: '?status=%00&botId={{foreign.bot}}&to=2026-02-30',
            key: ownKey,
          },
          {
            ...base,
            method: 'GET',
            route: 'GET /api/v1/leads/{id}',
            path: '/api/v1/leads/{{own.lead}}',
            query: '?x-api-key={{key.own}}',
            key: { kind: 'none' },
          },
          { ...base, method: 'GET', route: 'GET /api/v1/conversations/{id}/messages', path: '/api/v1/conversations/%ED%A0%80/messages', key: ownKey },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary POST /api/v1/leads within the contract and creates a lead only with 201',
    () =>
      fuzz(requestFor(CREATE_LEAD), RUNS, [
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'json', text: '{"name":"a","name":"b","email":"a@b.co","email":"c@d.co"}' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'json', text: '{"name":["a"],"email":"a@b.co","tags":"x","botId":1e400}' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'sized', target: BODY_LIMIT, field: 'message', char: 'a' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'sized', target: BODY_LIMIT + 1, field: 'message', char: 'a' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json; charset=latin1',
          body: { kind: 'json', text: '{"name":"a","email":"a@b.co"}' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: ownKey,
          contentType: 'application/json',
          encoding: { name: 'gzip', valid: true },
          body: { kind: 'json', text: '{"name":"Zipped","email":"zip@example.com"}' },
        },
        {
          ...base,
          method: 'POST',
          route: 'POST /api/v1/leads',
          path: '/api/v1/leads',
          key: { kind: 'prefix', length: 20 },
          contentType: 'text/plain',
          body: { kind: 'json', text: '{"name":"a"' },
        },
      ]),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary PATCH /api/v1/leads/:id within the contract and never breaks the status machine',
    () =>
      fuzz(requestFor(UPDATE_LEAD), RUNS, [
        {
          ...base,
          method: 'PATCH',
          route: 'PATCH /api/v1/leads/{id}',
          path: '/api/v1/leads/{{own.lead2}}',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'json', text: '{"status":"converted"}' },
        },
        {
          ...base,
          method: 'PATCH',
          route: 'PATCH /api/v1/leads/{id}',
          path: '/api/v1/leads/{{own.lead2}}',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'json', text: '{"status":["contacted"]}' },
        },
        {
          ...base,
          method: 'PATCH',
          route: 'PATCH /api/v1/leads/{id}',
          path: '/api/v1/leads/{{foreign.lead}}',
          key: ownKey,
          contentType: 'application/json',
          body: { kind: 'json', text: '{"status":"contacted"}' },
        },
      ]),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary webhook management requests within the contract',
    () =>
      fuzz(
        fc.constantFrom(...WEBHOOK_ROUTES).chain((route) => requestFor(route)),
        RUNS,
        [
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/webhooks',
            path: '/api/v1/webhooks',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"url":"https://hooks.example.com/in","events":["*","lead.created"]}' },
          },
          {
            ...base,
            method: 'PATCH',
            route: 'PATCH /api/v1/webhooks/{id}',
            path: '/api/v1/webhooks/{{foreign.webhook}}',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"enabled":false}' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
            path: '/api/v1/webhooks/{{own.webhook}}/deliveries/{{foreign.delivery}}/retry',
            key: ownKey,
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary knowledge document requests within the contract',
    () =>
      fuzz(
        fc.constantFrom(...KNOWLEDGE_ROUTES).chain((route) => requestFor(route)),
        RUNS,
        [
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/bots/{id}/documents',
            path: '/api/v1/bots/{{own.bot}}/documents',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'sized', target: DOCUMENT_BODY_LIMIT + 1, field: 'content', char: 'a' },
          },
          {
            ...base,
            method: 'PATCH',
            route: 'PATCH /api/v1/bots/{id}/documents/{docId}',
            path: '/api/v1/bots/{{own.bot}}/documents/{{foreign.document}}',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"title":"Hijacked"}' },
          },
          {
            ...base,
            method: 'DELETE',
            route: 'DELETE /api/v1/bots/{id}/documents/{docId}',
            path: '/api/v1/bots/{{foreign.bot}}/documents/{{foreign.document}}',
            key: ownKey,
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary handoff, delete and privacy requests within the contract',
    () =>
      fuzz(
        fc.constantFrom(...HANDOFF_ROUTES, DELETE_LEAD, ...PRIVACY_ROUTES).chain((route) => requestFor(route)),
        RUNS,
        [
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/conversations/{id}/messages',
            path: '/api/v1/conversations/{{own.liveConversation}}/messages',
            key: ownKey,
            contentType: 'application/json',
            idempotency: { kind: 'pooled', value: 'fz-idem-3' },
            body: { kind: 'json', text: '{"content":"A person here.","authorName":"Ada"}' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/conversations/{id}/handoff',
            path: '/api/v1/conversations/{{foreign.conversation}}/handoff',
            query: '?force=true',
            key: ownKey,
          },
          {
            ...base,
            method: 'DELETE',
            route: 'DELETE /api/v1/leads/{id}',
            path: '/api/v1/leads/{{own.doomedLead}}',
            key: ownKey,
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/privacy/erasures',
            path: '/api/v1/privacy/erasures',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"email":"nobody@erasure.example","visitorId":"erasure-visitor-none"}' },
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary API-channel requests (open a conversation, a visitor message) within the contract',
    () =>
      fuzz(
        fc.constantFrom(...API_CHANNEL_ROUTES).chain((route) => requestFor(route)),
        Math.ceil(RUNS / 2),
        [
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/conversations',
            path: '/api/v1/conversations',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"botId":"{{own.bot}}","externalId":"wa:+4915100000001","visitor":{"name":"Ada","email":"ada@example.com"}}' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/conversations/{id}/visitor-messages',
            path: '/api/v1/conversations/{{own.apiConversation}}/visitor-messages',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"content":"What does it cost?"}' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /api/v1/conversations/{id}/visitor-messages',
            path: '/api/v1/conversations/{{own.liveConversation}}/visitor-messages',
            key: ownKey,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"content":"A widget conversation is not found here."}' },
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers arbitrary admin API requests within the contract',
    () =>
      fuzz(
        fc.constantFrom(...ADMIN_ROUTES).chain((route) => requestFor(route)),
        RUNS,
        [
          {
            ...base,
            method: 'POST',
            route: 'POST /admin/v1/tenants',
            path: '/admin/v1/tenants',
            token: valid,
            contentType: 'application/json',
            body: { kind: 'json', text: '{"name":"Dup","slug":"{{sandbox.slug}}","plan":"pro"}' },
          },
          {
            ...base,
            method: 'GET',
            route: 'GET /admin/v1/tenants/{tenantId}/audit-log',
            path: '/admin/v1/tenants/{{sandbox.tenant}}/audit-log',
            query: '?limit=0&offset=-0',
            token: valid,
          },
          {
            ...base,
            method: 'DELETE',
            route: 'DELETE /admin/v1/tenants/{tenantId}/api-keys/{keyId}',
            path: '/admin/v1/tenants/{{sandbox.tenant}}/api-keys/%ED%A0%80',
            token: valid,
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "answers arbitrary requests of the dashboard's users (/auth/v1 and the users-only /api/v1 routes) within the contract",
    () =>
      fuzz(
        fc.constantFrom(...USER_ROUTES).chain((route) => requestFor(route)),
        RUNS,
        [
          {
            ...base,
            method: 'GET',
            route: 'GET /api/v1/members',
            path: '/api/v1/members',
            user: { role: 'viewer', cookie: 'valid', origin: 'none', tenant: 'team' },
          },
          {
            ...base,
            method: 'PATCH',
            route: 'PATCH /api/v1/members/{userId}',
            path: '/api/v1/members/{{foreign.user}}',
            user: { role: 'owner', cookie: 'valid', origin: 'own', tenant: 'team' },
            contentType: 'application/json',
            body: { kind: 'json', text: '{"role":"owner"}' },
          },
          {
            ...base,
            method: 'DELETE',
            route: 'DELETE /api/v1/api-keys/{id}',
            path: '/api/v1/api-keys/{{foreign.key}}',
            user: { role: 'admin', cookie: 'valid', origin: 'own', tenant: 'team' },
          },
          {
            ...base,
            method: 'GET',
            route: 'GET /api/v1/audit-log',
            path: '/api/v1/audit-log',
            query: '?actor=user:{{foreign.user}}&action=bot.created&from=2026-01-01',
            user: { role: 'owner', cookie: 'valid', origin: 'own', tenant: 'foreign' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /auth/v1/invitations/accept',
            path: '/auth/v1/invitations/accept',
            user: { role: 'owner', cookie: 'none', origin: 'own', tenant: 'none' },
            contentType: 'application/json',
            body: { kind: 'json', text: '{"token":"{{invitation.withdrawn}}","name":"Late","password":"late password 1"}' },
          },
          {
            ...base,
            method: 'POST',
            route: 'POST /auth/v1/password-resets/confirm',
            path: '/auth/v1/password-resets/confirm',
            user: { role: 'owner', cookie: 'none', origin: 'own', tenant: 'none' },
            contentType: 'application/json',
            body: { kind: 'json', text: '{"token":"{{reset.first}}","password":"reset password 123"}' },
          },
          {
            ...base,
            method: 'DELETE',
            route: 'DELETE /auth/v1/sessions/current',
            path: '/auth/v1/sessions/current',
            user: { role: 'owner', cookie: 'valid', origin: 'own', tenant: 'none' },
          },
        ],
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it('answers any method on any path with the envelope or a documented success', () => fuzz(anyPathRequest, Math.ceil(RUNS / 2)), PROPERTY_TIMEOUT_MS);

  it('holds exactly the initial leads plus one per 201 that created a lead, in every tenant', async () => {
    const rows = await snapshotRows();
    const actual = Object.fromEntries(rows.map((row) => [row.id, row.leads]));
    // Less one per 204 that deleted a lead.
    const expected = Object.fromEntries(
      rows.map((row) => [row.id, (initialLeads.get(row.id) ?? NaN) + (createdLeads.get(row.id) ?? 0) - (deletedLeads.get(row.id) ?? 0)]),
    );
    expect(actual).toEqual(expected);
    // The fuzz must have reached the success path, or the accounting proves nothing.
    expect(createdLeads.get(trackedTenants[0]) ?? 0).toBeGreaterThan(0);
  });

  // -------------------------------------------------------------------------------------------
  // Bugs this fuzz found, fixed, and pinned one by one so they stay fixed.
  // -------------------------------------------------------------------------------------------

  describe('bugs found by the fuzz', () => {
    const post = (path: string, text: string, headers: Record<string, string> = {}) =>
      send({
        method: 'POST',
        path,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: Buffer.from(text),
        text,
        bytes: Buffer.byteLength(text),
      });
    const get = (path: string, headers: Record<string, string> = {}) => send({ method: 'GET', path, headers, bytes: 0 });
    const validationError = (answer: Answer, field: string) => {
      expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message: expect.any(String),
            status: 400,
            requestId: answer.headers['x-request-id'],
            details: expect.arrayContaining([{ field, message: expect.any(String) }]),
          },
        },
      });
    };

    it('refuses U+0000 in the leads search with 400, not 500', async () => {
      validationError(await get('/api/v1/leads?search=a%00b', { 'X-API-Key': keys.own }), 'search');
    });

    it('refuses U+0000 in lead fields with 400, not 500', async () => {
      for (const field of ['name', 'phone', 'company', 'message']) {
        validationError(
          await post('/api/v1/leads', JSON.stringify({ name: 'Nul', email: 'nul@example.com', [field]: 'a\u0000b' }), { 'X-API-Key': keys.own }),
          field,
        );
      }
      validationError(
        await post('/api/v1/leads', JSON.stringify({ name: 'Nul', email: 'nul@example.com', tags: ['a\u0000b'] }), { 'X-API-Key': keys.own }),
        'tags[0]',
      );
    });

    it('refuses U+0000 in admin bodies with 400, not 500', async () => {
      const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
      validationError(await post('/admin/v1/tenants', JSON.stringify({ name: 'a\u0000b', slug: 'nul-tenant', plan: 'pro' }), admin), 'name');
      validationError(
        await post(
          `/admin/v1/tenants/${fixtures['sandbox.tenant']}/bots/${fixtures['sandbox.bot']}/documents`,
          JSON.stringify({ title: 'Doc', content: 'a\u0000b' }),
          admin,
        ),
        'content',
      );
    });

    it('refuses an e-mail address with a lone surrogate with 400, not 500', async () => {
      validationError(await post('/api/v1/leads', '{"name":"Surrogate","email":"a\\ud800@example.com"}', { 'X-API-Key': keys.own }), 'email');
      const conversation = `/admin/v1/tenants/${fixtures['sandbox.tenant']}/bots/${fixtures['sandbox.bot']}/conversations`;
      validationError(
        await post(conversation, '{"messages":[],"lead":{"name":"Surrogate","email":"\\udc00"}}', { Authorization: `Bearer ${ADMIN_TOKEN}` }),
        'lead.email',
      );
    });

    it('refuses deeply nested JSON with 400, not 500', async () => {
      const deep = `{"name":"Deep","email":"deep@example.com","tags":${'['.repeat(3_000)}${']'.repeat(3_000)}}`;
      const unknown = `{"name":"Deep","slug":"deep-tenant","plan":"pro","extra":${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}}`;
      for (const answer of [
        await post('/api/v1/leads', deep, { 'X-API-Key': keys.own }),
        await post('/admin/v1/tenants', unknown, { Authorization: `Bearer ${ADMIN_TOKEN}` }),
      ]) {
        expect({ status: answer.status, code: JSON.parse(answer.text).error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      }
    });

    it('refuses a body that does not match its Content-Encoding with 400 or 415, not 500', async () => {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const answer = await post('/api/v1/leads', '{"name":"a","email":"a@b.co"}', { 'X-API-Key': keys.own, 'Content-Encoding': encoding });
        expect([400, 415]).toContain(answer.status);
      }
    });

    it('gives an undecodable path the request id and a complete envelope', async () => {
      const answer = await get('/api/v1/leads/%E0%A4%A', { 'X-API-Key': keys.own, 'X-Request-Id': 'undecodable-1' });
      expect(answer.headers['x-request-id']).toBe('undecodable-1');
      expect(JSON.parse(answer.text)).toEqual({
        error: {
          code: answer.status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR',
          message: expect.any(String),
          status: answer.status,
          requestId: 'undecodable-1',
          ...(answer.status === 400 ? { details: expect.any(Array) } : {}),
        },
      });
    });

    it('refuses query parameters and body fields named like Object.prototype members with 400', async () => {
      for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
        validationError(await get(`/api/v1/leads?${name}=1`, { 'X-API-Key': keys.own }), name);
        validationError(await get(`/api/v1/verify?${name}=1`, { 'X-API-Key': keys.own }), name);
        validationError(await post('/api/v1/leads', `{"name":"Proto","email":"proto@example.com","${name}":1}`, { 'X-API-Key': keys.own }), name);
      }
    });
  });
});
