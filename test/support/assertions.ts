import type { Response } from 'supertest';

/** A lower-case UUID, as the API writes every id. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UTC timestamp with milliseconds, as the API writes every date. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Asserts the error answer: the status, an X-Request-Id header, and exactly the envelope
 * `{ error: { code, message, status, requestId } }` with the header's request id; with `details`,
 * the envelope carries exactly those details, without them it has no `details` field.
 */
export function expectError(response: Response, status: number, code: string, details?: readonly { field: unknown; message: unknown }[]): void {
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect({ status: response.status, body: response.body }).toStrictEqual({
    status,
    body: { error: { code, message: expect.any(String), status, requestId: response.headers['x-request-id'], ...(details ? { details } : {}) } },
  });
}
