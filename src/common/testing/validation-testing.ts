import type { Type } from '@nestjs/common';
import { FieldError, ValidationError } from '../errors/app-error';
import { createValidationPipe } from '../validation/validation.pipe';

const pipe = createValidationPipe();

/** Runs a value through the app's validation pipe as a body or query of the given DTO. */
export function parse<T>(metatype: Type<T>, value: unknown, type: 'body' | 'query'): Promise<T> {
  return pipe.transform(value, { type, metatype, data: undefined }) as Promise<T>;
}

/** The field errors the pipe answers for a value it must refuse (fails the test if it accepts it). */
export async function detailsOf(metatype: Type<unknown>, value: unknown, type: 'body' | 'query'): Promise<FieldError[]> {
  try {
    await parse(metatype, value, type);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    return (error as ValidationError).details ?? [];
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}
