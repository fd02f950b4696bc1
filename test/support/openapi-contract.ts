import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { servedExpressRoutes } from './controller-routes';

type Json = Record<string, unknown>;

export interface HeaderDoc {
  required?: boolean;
  schema?: Json;
}

export interface ResponseDoc {
  description: string;
  headers?: Record<string, HeaderDoc | Reference>;
  content?: Record<string, { schema?: Json }>;
}

export interface OperationDoc {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Json[];
  responses: Record<string, ResponseDoc | Reference>;
}

export interface Reference {
  $ref: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, OperationDoc>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes?: Record<string, Json>;
    headers?: Record<string, HeaderDoc>;
    responses?: Record<string, ResponseDoc>;
  };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The repository's committed openapi.json (written by `npm run openapi:export`). */
export const COMMITTED_DOCUMENT_PATH = path.resolve(__dirname, '../../openapi.json');

const COMPONENTS_ID = 'openapi-components';

/**
 * Response validation against an OpenAPI 3.1 document: status, headers and body of a supertest
 * response, with its schemas compiled as JSON Schema 2020-12 by ajv (strict mode, formats on).
 * Component schemas are closed for the check (no property the document does not list), so a
 * field added to an answer without being documented fails; the document itself stays open.
 */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    const schemas = Object.fromEntries(Object.entries(document.components.schemas).map(([name, schema]) => [name, closed(rewriteRefs(schema))]));
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: schemas });
  }

  /** The committed openapi.json, read once. */
  static committed(): OpenApiContract {
    committedContract ??= new OpenApiContract(JSON.parse(readFileSync(COMMITTED_DOCUMENT_PATH, 'utf8')) as OpenApiDocument);
    return committedContract;
  }

  /** The operation at a path template such as `/api/v1/leads/{id}`; throws when undocumented. */
  operation(method: string, pathTemplate: string): OperationDoc {
    const operation = this.document.paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method.toUpperCase()} ${pathTemplate} is not in the OpenAPI document`);
    return operation;
  }

  /** Every operation as "METHOD /path/{param}". */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([route, item]) =>
      Object.keys(item)
        .filter((key) => (HTTP_METHODS as readonly string[]).includes(key))
        .map((method) => `${method.toUpperCase()} ${route}`),
    );
  }

  /** Compiles every schema of the document: components, bodies and headers. Throws on the first bad one. */
  compileAll(): number {
    let count = 0;
    for (const name of Object.keys(this.document.components.schemas)) {
      this.validator(`component ${name}`, { $ref: `${COMPONENTS_ID}#/$defs/${name}` });
      count++;
    }
    for (const route of this.operations()) {
      const [method, pathTemplate] = route.split(' ');
      for (const [status, reference] of Object.entries(this.operation(method, pathTemplate).responses)) {
        const response = this.resolve(reference);
        for (const [mediaType, { schema }] of Object.entries(response.content ?? {})) {
          if (schema) {
            this.validator(`${route} ${status} ${mediaType}`, schema);
            count++;
          }
        }
        for (const [name, reference] of Object.entries(response.headers ?? {})) {
          const header = this.resolve(reference);
          if (header.schema) {
            this.validator(`${route} ${status} header ${name}`, header.schema);
            count++;
          }
        }
      }
    }
    return count;
  }

  /**
   * Checks an answer against the document: its status is documented for the operation, every
   * required header is there and every documented header matches its schema, the content type is
   * a documented one, and a JSON body matches the schema. Throws an error listing every mismatch.
   */
  expectMatches(response: Response, method: string, pathTemplate: string): void {
    const route = `${method.toUpperCase()} ${pathTemplate}`;
    const responses = this.operation(method, pathTemplate).responses;
    const status = String(response.status);
    const reference = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (!reference) {
      throw new Error(
        `${route} answered ${status}, which the document does not list (it lists ${Object.keys(responses).join(', ')}): ${response.text.slice(0, 500)}`,
      );
    }
    const documented = this.resolve(reference);
    const problems = [...this.headerProblems(route, status, documented, response), ...this.bodyProblems(route, status, documented, response)];
    if (problems.length) {
      throw new Error(`${route} answered ${status} differently from the OpenAPI document:\n- ${problems.join('\n- ')}\nBody: ${response.text.slice(0, 1000)}`);
    }
  }

  private headerProblems(route: string, status: string, documented: ResponseDoc, response: Response): string[] {
    const problems: string[] = [];
    for (const [name, reference] of Object.entries(documented.headers ?? {})) {
      const header = this.resolve(reference);
      const value = response.headers[name.toLowerCase()] as string | undefined;
      if (value === undefined) {
        if (header.required) problems.push(`header ${name} is required but missing`);
        continue;
      }
      if (!header.schema) continue;
      const validate = this.validator(`${route} ${status} header ${name}`, header.schema);
      if (!validate(coerceHeader(value, header.schema)))
        problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors, { dataVar: name })}`);
    }
    return problems;
  }

  private bodyProblems(route: string, status: string, documented: ResponseDoc, response: Response): string[] {
    const contentType = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (!documented.content) {
      return response.text ? [`a ${contentType || 'body'} body was sent, but the document lists none`] : [];
    }
    const mediaType = Object.keys(documented.content).find((type) => type.toLowerCase() === contentType);
    if (!mediaType) return [`content type ${JSON.stringify(contentType)} is not one of ${Object.keys(documented.content).join(', ')}`];
    const schema = documented.content[mediaType].schema;
    if (!schema) return [];
    const body: unknown = mediaType === 'application/json' ? JSON.parse(response.text) : response.text;
    const validate = this.validator(`${route} ${status} ${mediaType}`, schema);
    return validate(body)
      ? []
      : (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);
  }

  /** Follows a `#/components/...` reference (responses and headers are shared there). */
  resolve<T extends object>(value: T | Reference): T {
    if (!('$ref' in value) || typeof value.$ref !== 'string') return value as T;
    const target = value.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    if (!target || typeof target !== 'object') throw new Error(`Unresolvable reference ${value.$ref}`);
    return this.resolve(target as T | Reference);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      try {
        validate = this.ajv.compile(rewriteRefs(schema) as Json);
      } catch (error) {
        throw new Error(`The schema of ${key} does not compile as JSON Schema 2020-12: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
      this.validators.set(key, validate);
    }
    return validate;
  }
}

let committedContract: OpenApiContract | undefined;

/**
 * Checks a supertest answer against the committed openapi.json; the OpenAPI contract test keeps
 * that file equal to the document the app serves. `pathTemplate` is the documented path, e.g.
 * `/api/v1/leads/{id}`.
 */
export function expectMatchesContract(response: Response, method: string, pathTemplate: string): void {
  OpenApiContract.committed().expectMatches(response, method, pathTemplate);
}

/** Header values are strings on the wire; a numeric or boolean schema describes the parsed value. */
function coerceHeader(value: string, schema: Json): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' ? child.replace(/^#\/components\/schemas\//, `${COMPONENTS_ID}#/$defs/`) : rewriteRefs(child),
    ]),
  );
}

/** Adds `additionalProperties: false` to every object schema that lists properties and says nothing else. */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (value === null || typeof value !== 'object') return value;
  const schema = Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, key === 'properties' ? mapValues(child as Json, closed) : closed(child)]),
  );
  if (schema.properties && !('additionalProperties' in schema) && !('unevaluatedProperties' in schema)) schema.additionalProperties = false;
  return schema;
}

function mapValues(map: Json, fn: (value: unknown) => unknown): Json {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, fn(value)]));
}

/** A route as Express serves it, e.g. `GET /api/v1/leads/:id`, in OpenAPI form: `GET /api/v1/leads/{id}`. */
export function toOpenApiRoute(route: string): string {
  return route.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/** The routes the app's Express router serves (servedExpressRoutes), as "METHOD /path" in OpenAPI form. */
export function servedRoutes(app: INestApplication): string[] {
  return servedExpressRoutes(app)
    .filter((route) => !route.startsWith('_ALL '))
    .map(toOpenApiRoute);
}
