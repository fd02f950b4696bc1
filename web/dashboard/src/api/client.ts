import createClient, { type Middleware } from 'openapi-fetch';
// The one typed description of the API, generated from openapi.json (npm run client:generate).
import type { components, paths } from '../../../../examples/api-types';

export type Schemas = components['schemas'];
/** The API's enums as lists, from the same generated file: every role, every scope a key may hold. */
export { roleValues as ROLES, scopeValues as SCOPES } from '../../../../examples/api-types';
export type FieldError = Schemas['FieldErrorResponse'];

/** An error answer of the API, as the envelope describes it (never shown raw: see forms/form-errors). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

let tenantId: string | null = null;
let onSessionEnded: () => void = () => undefined;

/** The tenant the dashboard acts for: every /api/v1 request names it in X-Tenant-Id. */
export function useTenantHeader(id: string | null): void {
  tenantId = id;
}

/** Called when the API answers 401 to a session request: the session expired or was ended elsewhere. */
export function whenSessionEnds(listener: () => void): void {
  onSessionEnded = listener;
}

const tenantHeader: Middleware = {
  onRequest({ request }) {
    const path = new URL(request.url).pathname;
    if (tenantId && path.startsWith('/api/v1/') && !path.startsWith('/api/v1/widget/')) request.headers.set('X-Tenant-Id', tenantId);
    return request;
  },
  onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !request.headers.has('X-API-Key') && path !== '/auth/v1/sessions') onSessionEnded();
    return response;
  },
};

/** The typed client of the service's own API (same origin: the session cookie goes along, and Origin on writes). */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(tenantHeader);

type Envelope = { error?: { code?: string; message?: string; details?: FieldError[]; requestId?: string } };

/** The answer's data, or an ApiError built from its envelope (or from a network failure). */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached. Check your connection and try again.');
  }
  if (result.response.ok) return result.data as T;
  const body = (result.error ?? {}) as Envelope;
  throw new ApiError(
    result.response.status,
    body.error?.code ?? 'UNKNOWN',
    body.error?.message ?? `The request failed (${result.response.status}).`,
    body.error?.details ?? [],
    body.error?.requestId,
  );
}
