import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ValidationError } from '../common/errors/app-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
const PRINTABLE_ASCII_KEY = /^[\x20-\x7E]{1,255}$/;

/**
 * The Idempotency-Key header's value: undefined when the header is absent, a 400 VALIDATION_ERROR
 * on `Idempotency-Key` when it is sent more than once or is not 1 to 255 printable ASCII characters.
 */
export function parseIdempotencyKey(values: readonly string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  if (values.length !== 1) throw ValidationError.field(IDEMPOTENCY_KEY_HEADER, 'must be sent once');
  if (!PRINTABLE_ASCII_KEY.test(values[0])) throw ValidationError.field(IDEMPOTENCY_KEY_HEADER, 'must be 1 to 255 printable ASCII characters');
  return values[0];
}

/** The request's validated Idempotency-Key header (see parseIdempotencyKey). */
export const IdempotencyKey = createParamDecorator((_: unknown, context: ExecutionContext): string | undefined =>
  parseIdempotencyKey(context.switchToHttp().getRequest<Request>().headersDistinct[IDEMPOTENCY_KEY_HEADER.toLowerCase()]),
);
