import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_BEARER_SCHEME, API_KEY_SCHEME, HEADER_COMPONENTS, RESPONSE_COMPONENTS, SESSION_SCHEME, TENANT_HEADER_SCHEME } from './openapi.decorators';
import { OpenApiDocumentStore } from './openapi-document.store';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

/** The version of the API description (the API itself is version 1, in the path). */
export const API_DOCUMENT_VERSION = '1.0.0';

const DESCRIPTION = [
  'The public REST API (v1) of the chatbot platform, and the admin API the dashboard uses.',
  '',
  '- `/api/v1` routes take a tenant API key in the `X-API-Key` header; each names the scope it needs.',
  '- `/admin/v1` routes take `Authorization: Bearer <ADMIN_API_TOKEN>`.',
  '- HTTPS only: plain HTTP is refused with 403 `HTTPS_REQUIRED` (outside production, plain HTTP from a loopback address is accepted); `/health` is exempt.',
  '- Every answer carries `X-Request-Id`; every error is the envelope `{ "error": { "code", "message", "status", "requestId", "details"? } }`.',
  '- Lists page with `limit` and `offset`: repeat with `offset + limit` while `pagination.hasMore` is true.',
].join('\n');

/**
 * The OpenAPI 3.1 description of every route the app serves, read from its controllers, DTOs and
 * response classes. Built once, at start-up, by configureApp.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Chatbot Platform API')
    .setDescription(DESCRIPTION)
    .setVersion(API_DOCUMENT_VERSION)
    .addServer('/', 'The host that serves this document')
    .addServer('http://localhost:3000', 'A local development server (`npm start`)')
    .addSecurity(API_KEY_SCHEME, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'A tenant API key (`svc_sk_…` secret key; `svc_pk_…` public keys may only call /api/v1/verify).',
    })
    .addSecurity(ADMIN_BEARER_SCHEME, { type: 'http', scheme: 'bearer', description: 'The admin token from the `ADMIN_API_TOKEN` configuration variable.' })
    .addSecurity(SESSION_SCHEME, {
      type: 'apiKey',
      in: 'cookie',
      name: 'svc_session',
      description:
        "A signed-in user: the session cookie set by `POST /auth/v1/sessions` (HttpOnly, SameSite=Lax). A POST, PUT, PATCH or DELETE must carry the service's own `Origin`.",
    })
    .addSecurity(TENANT_HEADER_SCHEME, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Tenant-Id',
      description: "With the session cookie: the tenant of the request, one of the user's memberships.",
    })
    .addTag('Account', 'The API key and its tenant')
    .addTag('Bots', 'The tenant’s bots and their counters')
    .addTag('Conversations', 'Conversations and their messages')
    .addTag('Leads', 'Leads: create, list, update, import and export as CSV')
    .addTag('Analytics', 'Figures and time series of conversations, messages, leads and visitors, in the tenant’s time zone')
    .addTag('Settings', 'The tenant’s settings (time zone, widget origins, visitor limits, lead form) and each bot’s')
    .addTag('Knowledge documents', 'A bot’s knowledge: the documents its answers come from, searchable as soon as they change')
    .addTag('Webhooks', 'Endpoints that receive events, their secrets and deliveries')
    .addTag('Privacy', 'A person’s data: export and erasure (deletes of single leads and conversations are with them)')
    .addTag('Widget', 'The chat widget’s calls from visitors’ browsers, with a public key (`svc_pk_…`) and a visitor token')
    .addTag('Auth', 'Dashboard users: sign-up, log-in, sessions, passwords and invitations')
    .addTag('Tenant', "The signed-in user's tenant: its plan and usage, members and invitations")
    .addTag('API keys', 'The tenant’s API keys, made and deleted by its owners and admins, with their 30-day activity')
    .addTag('Audit log', 'Who changed what: every change with its actor, request id and client address')
    .addTag('Admin', 'The dashboard’s back end')
    .addTag('Operations', 'Health probes and this description')
    .addTag('Dashboard', 'The dashboard web app, served by the service')
    .build();
  const document = SwaggerModule.createDocument(app, config, { autoTagControllers: false });
  return toOpenApi31(withClosedRequestBodies(withSharedComponents(document))) as OpenAPIObject;
}

/**
 * Adds the shared headers and error responses the operations refer to (and only those), in name
 * order, and drops the empty description @nestjs/swagger puts beside a response reference. An
 * operation without a security scheme (health, this description) says so: `security: []`.
 */
function withSharedComponents(document: OpenAPIObject): OpenAPIObject {
  const used = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as { security?: unknown[]; responses?: Record<string, Record<string, unknown>> }[]) {
      operation.security ??= [];
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (typeof response.$ref !== 'string') continue;
        used.add(response.$ref.replace('#/components/responses/', ''));
        operation.responses![status] = { $ref: response.$ref };
      }
    }
  }
  const responses = [...used].sort().map((name) => {
    const response = RESPONSE_COMPONENTS.get(name);
    if (!response) throw new Error(`The OpenAPI document refers to an unknown response component ${name}`);
    return [name, response] as const;
  });
  const referenced = JSON.stringify([document.paths, responses]);
  const headers = Object.keys(HEADER_COMPONENTS)
    .filter((name) => referenced.includes(`"#/components/headers/${name}"`))
    .sort()
    .map((name) => [name, HEADER_COMPONENTS[name]] as const);
  return {
    ...document,
    components: { ...document.components, headers: Object.fromEntries(headers), responses: Object.fromEntries(responses) },
  };
}

/**
 * Request bodies are closed, as the service applies them (unknown fields are 400): every schema a
 * request body uses, nested ones included, gets `additionalProperties: false`, so that generated
 * clients and contract testers refuse what the service refuses.
 */
function withClosedRequestBodies(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  const closed = new Set<string>();
  const close = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(close);
    if (value === null || typeof value !== 'object') return;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const name = ref.replace('#/components/schemas/', '');
      if (closed.has(name) || !schemas[name]) return;
      closed.add(name);
      schemas[name] = { ...schemas[name], additionalProperties: false };
      return close(schemas[name]);
    }
    Object.values(value).forEach(close);
  };
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as { requestBody?: unknown }[]) close(operation.requestBody);
  }
  return document;
}

/** Builds the document and hands it to the route that serves it. */
export function publishOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocumentStore).publish(document);
  return document;
}

/**
 * @nestjs/swagger writes OpenAPI 3.0 schemas; 3.1 schemas are JSON Schema 2020-12, where
 * `nullable` does not exist. A nullable schema becomes a type list with "null" (and `null` joins
 * its enum), or an anyOf with {"type": "null"} when it is a reference.
 */
export function toOpenApi31(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toOpenApi31);
  if (value === null || typeof value !== 'object') return value;
  const { nullable, ...rest } = value as Record<string, unknown>;
  const converted = Object.fromEntries(
    Object.entries(rest).map(([key, child]) => [key, key === 'properties' || key === 'schemas' ? mapValues(child) : toOpenApi31(child)]),
  );
  if (nullable !== true) return converted;
  // A described reference comes as {type: 'object', allOf: [{$ref}]}: a type list would let null
  // in only to have the reference refuse it, so it is the referenced schema or null.
  const { type: _type, allOf, ...annotations } = converted;
  if (Array.isArray(allOf) && allOf.length === 1) return { ...annotations, anyOf: [allOf[0], { type: 'null' }] };
  if (typeof converted.type === 'string') {
    return {
      ...converted,
      type: [converted.type, 'null'],
      ...(Array.isArray(converted.enum) ? { enum: [...converted.enum, null] } : {}),
    };
  }
  return { anyOf: [converted, { type: 'null' }] };
}

/** A map whose keys are names (properties, component schemas), not schema keywords. */
function mapValues(map: unknown): unknown {
  if (map === null || typeof map !== 'object') return map;
  return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, toOpenApi31(schema)]));
}
