import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiSecurity, getSchemaPath } from '@nestjs/swagger';
import { EmptyBodyDto } from '../common/validation/empty-body.dto';
import type { ApiResponseOptions, HeaderObject, HeadersObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { Scope } from '../common/access/scopes';
import { Access, type AccessRule } from '../common/access/access.decorators';
import { ErrorEnvelope, FieldErrorResponse } from '../common/errors/error-envelope';
import { ERROR_CATALOGUE, ErrorCode } from '../common/errors/error-codes';

export const API_KEY_SCHEME = 'ApiKeyAuth';
export const ADMIN_BEARER_SCHEME = 'AdminBearerAuth';
export const SESSION_SCHEME = 'SessionCookie';
export const TENANT_HEADER_SCHEME = 'TenantId';

/** A signed-in user's request for one of their tenants: the session cookie and X-Tenant-Id, together. */
const USER_SECURITY = { [SESSION_SCHEME]: [], [TENANT_HEADER_SCHEME]: [] };

/** What a user's request to a tenant route can be refused with, beyond a key's errors. */
const USER_ERRORS: readonly ErrorCode[] = [
  ErrorCode.INVALID_SESSION,
  ErrorCode.CSRF_REJECTED,
  ErrorCode.TENANT_REQUIRED,
  ErrorCode.NOT_A_MEMBER,
  ErrorCode.INSUFFICIENT_ROLE,
];

const header = (schema: SchemaObject, description: string, required = true): HeaderObject => ({ description, required, schema });

const RESPONSE_HEADERS: Readonly<Record<string, HeaderObject>> = {
  'X-Request-Id': header(
    { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    'The request id: a well-formed incoming `X-Request-Id`, otherwise a new UUID.',
  ),
  'X-RateLimit-Limit': header(
    { type: 'integer', minimum: 1 },
    "The plan's hourly request limit (all keys of the tenant share it); for a signed-in user, their own limit of 600 a minute.",
  ),
  'X-RateLimit-Remaining': header({ type: 'integer', minimum: 0 }, 'Requests left in the current hour, never negative.'),
  'X-RateLimit-Reset': header({ type: 'integer', minimum: 0 }, 'Unix epoch seconds at which the hourly window resets.'),
  RateLimit: header(
    { type: 'string', pattern: '^"(hourly|user)";r=\\d+;t=\\d+$' },
    "IETF RateLimit field of the hourly window (a user's: their minute window): requests left and seconds to the reset.",
  ),
  'RateLimit-Policy': header(
    { type: 'string', pattern: '^"[a-z]+";q=\\d+;w=\\d+(, "[a-z]+";q=\\d+;w=\\d+)*$' },
    'IETF RateLimit-Policy field: the burst and hourly windows with their quota and width in seconds.',
  ),
  'Retry-After': header({ type: 'integer', minimum: 1 }, 'Whole seconds to wait before retrying.'),
  Location: header({ type: 'string', format: 'uri-reference', pattern: '^/api/v1/leads/[0-9a-f-]{36}$' }, 'The path of the new lead.'),
  ConversationLocation: header(
    { type: 'string', format: 'uri-reference', pattern: '^/api/v1/conversations/[0-9a-f-]{36}$' },
    'The path of the new conversation.',
  ),
  'Idempotent-Replayed': header(
    { type: 'string', enum: ['true'] },
    'Present, `true`, when the answer is the stored answer to an earlier request with the same `Idempotency-Key`.',
    false,
  ),
};

const RATE_LIMIT_HEADER_NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

/**
 * Response headers the service writes (API_DECISIONS: Conventions, Rate limits; Leads), shared
 * as `components.headers`. A `.optional` name is the same header where an answer may lack it.
 */
export const HEADER_COMPONENTS: Readonly<Record<string, HeaderObject>> = {
  ...RESPONSE_HEADERS,
  ...Object.fromEntries(
    RATE_LIMIT_HEADER_NAMES.map((name) => [
      `${name}.optional`,
      {
        ...RESPONSE_HEADERS[name],
        required: false,
        description: `${RESPONSE_HEADERS[name].description} Present when the request was counted against the quota, that is after the key and plan checks, and never on answers to public keys, which do not count against it.`,
      },
    ]),
  ),
};

/** A reference to a shared header: `headerRef('Location')`. */
export const headerRef = (component: string): ReferenceObject => {
  if (!HEADER_COMPONENTS[component]) throw new Error(`No header component ${component}`);
  return { $ref: `#/components/headers/${component}` };
};

/** The rate-limit headers of an /api/v1 answer: always there (required) or only when it was counted. */
function rateLimitHeaders(required: boolean): HeadersObject {
  return Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, headerRef(required ? name : `${name}.optional`)]));
}

/**
 * `v1`: an /api/v1 route for secret keys only (it needs a scope, so public keys get 403 before
 * anything else); `v1AnyKey`: one that public keys may call too, whose answers to them carry no
 * quota headers (API_DECISIONS, Rate limits: one rule more); `other`: the rest.
 */
type Surface = 'v1' | 'v1AnyKey' | 'other';

const COMPONENT_PREFIX: Record<Surface, string> = { v1: 'ApiV1', v1AnyKey: 'ApiV1AnyKey', other: '' };

/**
 * Statuses whose /api/v1 answers to secret keys always passed the rate limiter. 401 and
 * PLAN_UPGRADE_REQUIRED come before it, and a 429 of the failed-authentication guard or of the
 * public-key limit has no tenant quota to report.
 */
const RATE_LIMITED_ERROR_STATUSES = new Set([400, 404, 409, 413, 415]);

function errorHeaders(status: number, codes: readonly ErrorCode[], surface: Surface): HeadersObject {
  const headers: HeadersObject = { 'X-Request-Id': headerRef('X-Request-Id') };
  // A user without X-Tenant-Id is refused before any limit counts the request.
  const counted = surface === 'v1' && RATE_LIMITED_ERROR_STATUSES.has(status) && !codes.includes(ErrorCode.TENANT_REQUIRED);
  if (surface !== 'other' && status !== 401) Object.assign(headers, rateLimitHeaders(counted));
  if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
  return headers;
}

/**
 * Error answers shared as `components.responses`, one per status, set of codes and kind of route,
 * e.g. `Error404.NOT_FOUND` or `ApiV1Error403.HTTPS_REQUIRED.PLAN_UPGRADE_REQUIRED`.
 */
export const RESPONSE_COMPONENTS = new Map<string, ResponseObject>();

function errorResponse(status: number, codes: ErrorCode[], routeSurface: Surface): MethodDecorator & ClassDecorator {
  // Where the two kinds of /api/v1 route answer alike, they share one component.
  const surface = routeSurface === 'v1AnyKey' && !RATE_LIMITED_ERROR_STATUSES.has(status) ? 'v1' : routeSurface;
  const name = `${COMPONENT_PREFIX[surface]}Error${status}.${codes.join('.')}`;
  if (!RESPONSE_COMPONENTS.has(name)) {
    const validation = codes.includes(ErrorCode.VALIDATION_ERROR);
    const details: SchemaObject = { type: 'array', minItems: 1, items: { $ref: getSchemaPath(FieldErrorResponse) } };
    // Only VALIDATION_ERROR carries `details`: where a status has other codes too (a user's 400
    // TENANT_REQUIRED), `details` is required of that code alone.
    const detailsRequired =
      codes.length === 1
        ? { required: ['details'] }
        : { if: { properties: { code: { const: ErrorCode.VALIDATION_ERROR } } }, then: { properties: { details }, required: ['details'] } };
    const narrowed: SchemaObject = {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', enum: codes },
            status: { type: 'integer', enum: [status] },
            ...(validation ? { details } : {}),
          },
          ...(validation ? detailsRequired : {}),
        },
      },
    };
    RESPONSE_COMPONENTS.set(name, {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].when}.`).join('\n\n'),
      headers: errorHeaders(status, codes, surface),
      content: { 'application/json': { schema: { allOf: [{ $ref: getSchemaPath(ErrorEnvelope) }, narrowed] } } },
    });
  }
  // @nestjs/swagger passes a response without type or schema through as it is: here, a reference.
  return ApiResponse({ status, $ref: `#/components/responses/${name}` } as ApiResponseOptions);
}

function errorDecorators(codes: readonly ErrorCode[], surface: Surface): (MethodDecorator & ClassDecorator)[] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, grouped]) => errorResponse(status, grouped, surface));
}

/**
 * Documents error answers in the envelope, one response per status with `code` narrowed to the
 * codes given. Give every code of an endpoint in one call: a later call replaces a status.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiExtraModels(ErrorEnvelope), ...errorDecorators(codes, 'other'));
}

/** The errors of a request with a JSON body (JsonBodyGuard, then the body's DTO). */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = [ErrorCode.VALIDATION_ERROR, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE];

export interface EndpointDocs {
  operationId: string;
  summary: string;
  description?: string;
  /** The success status; 200 by default. */
  status?: number;
  /** The success body; none for 204. */
  type?: Type;
  /** A success body that is not JSON: its media type (the body is then a string, e.g. a CSV file). */
  produces?: string;
  /** Headers of the success answer beyond X-Request-Id (and the rate-limit headers on /api/v1). */
  headers?: HeadersObject;
  /** The endpoint's own error codes, beyond the ones its kind of route always has. */
  errors?: readonly ErrorCode[];
}

function successResponse(docs: EndpointDocs, headers: HeadersObject, description: string) {
  return ApiResponse({
    status: docs.status ?? 200,
    description,
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...headers, ...docs.headers },
    ...(docs.type ? { type: docs.type } : {}),
    ...(docs.produces ? { content: { [docs.produces]: { schema: { type: 'string' } } } } : {}),
  });
}

const operation = (docs: EndpointDocs, note: string) =>
  ApiOperation({ operationId: docs.operationId, summary: docs.summary, description: [docs.description, note].filter(Boolean).join('\n\n') });

type RuleOf<K extends AccessRule['kind']> = Extract<AccessRule, { kind: K }>;

/**
 * Documents a route from its access rule, which these decorators read and never set: the route
 * declares its rule once, with its own decorator (`@RequireScopes`, `@UsersOnly`...), written
 * below this one (decorators apply from the bottom up, so the rule is there when this one runs):
 *
 *     @Get()
 *     @ApiV1Endpoint({ operationId: 'listBots', ... })
 *     @RequireScopes(Scope.BotsRead)
 *
 * A rule of another kind, or none yet, stops the app from loading, naming the handler.
 */
function fromDeclaredRule<K extends AccessRule['kind']>(name: string, kinds: readonly K[], document: (rule: RuleOf<K>) => MethodDecorator): MethodDecorator {
  return (target, key, descriptor) => {
    const rule = Reflect.getMetadata(Access.KEY, descriptor.value as object) as AccessRule | undefined;
    if (!rule || !(kinds as readonly string[]).includes(rule.kind)) {
      throw new Error(
        `${target.constructor.name}.${String(key)}: @${name} documents a route whose access rule (${kinds.join(' or ')}) is declared below it; found ${rule ? rule.kind : 'no rule'}.`,
      );
    }
    return document(rule as RuleOf<K>)(target, key, descriptor);
  };
}

/**
 * An /api/v1 endpoint of `@RequireScopes` (none means any valid key): the X-API-Key scheme with
 * the rule's scopes, the rate-limit headers, and the errors every key-authenticated route can give
 * (transport, key, plan, rate limit, scope, query validation).
 */
export function ApiV1Endpoint(docs: EndpointDocs): MethodDecorator {
  return fromDeclaredRule('ApiV1Endpoint', ['apiKey'], ({ scopes }) => documentV1Endpoint(docs, [...scopes]));
}

function documentV1Endpoint(docs: EndpointDocs, scopes: Scope[]): MethodDecorator {
  const scopeNote = scopes.length
    ? `Requires the scope${scopes.length > 1 ? 's' : ''} ${scopes.map((s) => `\`${s}\``).join(', ')}.`
    : 'Any valid key, public keys included.';
  const errors: ErrorCode[] = [
    ErrorCode.VALIDATION_ERROR,
    ErrorCode.INVALID_API_KEY,
    ErrorCode.HTTPS_REQUIRED,
    ErrorCode.PLAN_UPGRADE_REQUIRED,
    ...(scopes.length ? [ErrorCode.INSUFFICIENT_SCOPE] : []),
    ...USER_ERRORS,
    ...(docs.errors ?? []),
    ErrorCode.RATE_LIMIT_EXCEEDED,
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.SERVICE_UNAVAILABLE,
  ];
  const userNote = 'A signed-in user may call it too (session cookie and `X-Tenant-Id`) when their role holds the same scopes.';
  return applyDecorators(
    operation(docs, `${scopeNote} ${userNote}`),
    ApiSecurity(API_KEY_SCHEME, scopes),
    ApiSecurity(USER_SECURITY),
    // Public keys may call a route without scopes, and their answers carry no quota headers.
    successResponse(docs, rateLimitHeaders(scopes.length > 0), 'Success.'),
    ApiExtraModels(ErrorEnvelope),
    ...errorDecorators(errors, scopes.length ? 'v1' : 'v1AnyKey'),
  );
}

/**
 * An /api/v1/widget endpoint of `@WidgetOnly` or `@VisitorOnly`: a public key (secret keys are
 * 403), the visitor's token on every call after the session, and the errors every widget route can give.
 */
export function ApiWidgetEndpoint(docs: EndpointDocs): MethodDecorator {
  return fromDeclaredRule('ApiWidgetEndpoint', ['widget', 'visitor'], ({ kind }) => documentWidgetEndpoint({ ...docs, visitorToken: kind === 'visitor' }));
}

function documentWidgetEndpoint(docs: EndpointDocs & { visitorToken: boolean }): MethodDecorator {
  const errors: ErrorCode[] = [
    ErrorCode.VALIDATION_ERROR,
    ErrorCode.INVALID_API_KEY,
    ...(docs.visitorToken ? [ErrorCode.INVALID_VISITOR_TOKEN] : []),
    ErrorCode.HTTPS_REQUIRED,
    ErrorCode.PLAN_UPGRADE_REQUIRED,
    ErrorCode.INSUFFICIENT_SCOPE,
    ErrorCode.ORIGIN_NOT_ALLOWED,
    ErrorCode.BOT_INACTIVE,
    ...(docs.errors ?? []),
    ErrorCode.RATE_LIMIT_EXCEEDED,
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.SERVICE_UNAVAILABLE,
  ];
  const note =
    'Widget API: a public key (`svc_pk_`) in `X-API-Key`; secret keys are refused (403 `INSUFFICIENT_SCOPE`). ' +
    (docs.visitorToken ? 'The visitor token from `POST /api/v1/widget/sessions` in `X-Visitor-Token`. ' : '') +
    "Limited to 60 requests a minute per client address (IPv6: per /64); never counted against the tenant's API quota.";
  return applyDecorators(
    operation(docs, note),
    ApiSecurity(API_KEY_SCHEME, []),
    ...(docs.visitorToken
      ? [ApiHeader({ name: 'X-Visitor-Token', required: true, description: 'The visitor token of the session.', schema: { type: 'string', maxLength: 1024 } })]
      : []),
    successResponse(docs, {}, 'Success.'),
    ApiExtraModels(ErrorEnvelope),
    ...errorDecorators(errors, 'v1AnyKey'),
  );
}

/** A second success answer of an /api/v1 endpoint: 204 without a body, with the same headers. */
export function ApiV1NoContent(description: string): MethodDecorator {
  return ApiResponse({ status: 204, description, headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...rateLimitHeaders(true) } });
}

/**
 * An /api/v1 route of `@UsersOnly`, for the dashboard's users only (members, invitations, keys...):
 * the session cookie and X-Tenant-Id, any member or owners and admins only. A key is refused with 403.
 */
export function ApiUserEndpoint(docs: EndpointDocs): MethodDecorator {
  return fromDeclaredRule('ApiUserEndpoint', ['tenantUser'], (rule) => documentUserEndpoint(docs, rule));
}

function documentUserEndpoint(docs: EndpointDocs, rule: RuleOf<'tenantUser'>): MethodDecorator {
  const errors: ErrorCode[] = [
    ErrorCode.VALIDATION_ERROR,
    ...USER_ERRORS,
    ErrorCode.INVALID_API_KEY,
    ErrorCode.INSUFFICIENT_SCOPE,
    ErrorCode.HTTPS_REQUIRED,
    ...(docs.errors ?? []),
    ErrorCode.RATE_LIMIT_EXCEEDED,
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.SERVICE_UNAVAILABLE,
  ];
  const who = rule.scopes?.length
    ? `members whose role holds ${rule.scopes.map((s) => `\`${s}\``).join(', ')}`
    : rule.role === 'manager'
      ? 'owners and admins'
      : 'every member';
  const note = `Dashboard users only (session cookie and \`X-Tenant-Id\`; API keys get 403 \`INSUFFICIENT_SCOPE\`): ${who}.`;
  return applyDecorators(
    operation(docs, note),
    ApiSecurity(USER_SECURITY),
    successResponse(docs, {}, 'Success.'),
    ApiExtraModels(ErrorEnvelope),
    ...errorDecorators(errors, 'other'),
  );
}

/**
 * An /auth/v1 endpoint: `@SignInStep`, a step taken before a session exists (sign-up, log-in,
 * resets, invitations), same-origin only; `@SignedIn`, the signed-in user's own account.
 */
export function ApiAuthEndpoint(docs: EndpointDocs): MethodDecorator {
  return fromDeclaredRule('ApiAuthEndpoint', ['signIn', 'session'], ({ kind }) => documentAuthEndpoint({ ...docs, access: kind }));
}

function documentAuthEndpoint(docs: EndpointDocs & { access: 'signIn' | 'session' }): MethodDecorator {
  const errors: ErrorCode[] = [
    // A query string or body field the handler does not declare (UndeclaredInputGuard).
    ErrorCode.VALIDATION_ERROR,
    ...(docs.access === 'session' ? [ErrorCode.INVALID_SESSION] : []),
    ErrorCode.CSRF_REJECTED,
    ErrorCode.HTTPS_REQUIRED,
    ...(docs.errors ?? []),
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.SERVICE_UNAVAILABLE,
  ];
  const note =
    docs.access === 'session'
      ? "The signed-in user (the `svc_session` cookie). A POST, PATCH or DELETE must carry the service's own `Origin`."
      : "No session needed; the request must carry the service's own `Origin` (403 `CSRF_REJECTED` otherwise).";
  return applyDecorators(
    operation(docs, note),
    ...(docs.access === 'session' ? [ApiSecurity(SESSION_SCHEME)] : []),
    successResponse(docs, {}, 'Success.'),
    ApiExtraModels(ErrorEnvelope),
    ...errorDecorators(errors, 'other'),
  );
}

/** An /admin/v1 endpoint: the admin bearer token, and the errors every admin route can give. */
export function ApiAdminEndpoint(docs: EndpointDocs): MethodDecorator {
  const errors: ErrorCode[] = [
    // A query string or body field the handler does not declare (UndeclaredInputGuard).
    ErrorCode.VALIDATION_ERROR,
    ErrorCode.UNAUTHORIZED,
    ErrorCode.HTTPS_REQUIRED,
    ErrorCode.NOT_FOUND,
    ...(docs.errors ?? []),
    // Wrong tokens are throttled per client IP (the failed-authentication guard).
    ErrorCode.RATE_LIMIT_EXCEEDED,
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.SERVICE_UNAVAILABLE,
  ];
  return applyDecorators(
    operation(docs, 'Admin API (the dashboard’s back end): `Authorization: Bearer <ADMIN_API_TOKEN>`. Answers 404 while the admin API is disabled.'),
    ApiSecurity(ADMIN_BEARER_SCHEME),
    successResponse(docs, {}, 'Success.'),
    ApiExtraModels(ErrorEnvelope),
    ...errorDecorators(errors, 'other'),
  );
}

/** A route without authentication (health probes, the API description and its reference page). */
export function ApiPublicEndpoint(docs: EndpointDocs & { content?: Record<string, { schema?: SchemaObject }> }): MethodDecorator {
  const success = docs.content
    ? ApiResponse({
        status: docs.status ?? 200,
        description: 'Success.',
        headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...docs.headers },
        content: docs.content,
      })
    : successResponse(docs, {}, 'Success.');
  return applyDecorators(operation(docs, 'No authentication.'), success, ApiExtraModels(ErrorEnvelope), ...errorDecorators(docs.errors ?? [], 'other'));
}

/** A UUID path parameter; an id that is not a UUID, or not the tenant's, is answered 404. */
export function ApiIdParam(name: string, what: string): MethodDecorator {
  return ApiParam({ name, description: `${what} id (UUID).`, schema: { type: 'string', format: 'uuid' } });
}

/** A POST that takes no body: `{}` or nothing is documented; any field is a 400 (UndeclaredInputGuard). */
export const ApiNoBody = (): MethodDecorator => applyDecorators(ApiExtraModels(EmptyBodyDto), ApiBody({ type: EmptyBodyDto, required: false }));

/** The `Last-Event-ID` header of a server-sent events stream of a conversation's messages. */
export const ApiLastEventIdHeader = (): MethodDecorator =>
  ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'The id of the last message received: the stream resumes after it.',
    schema: { type: 'string', format: 'uuid' },
  });
