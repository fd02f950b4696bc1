import { applyDecorators } from '@nestjs/common';
import { IsDefined, ValidateIf } from 'class-validator';

/**
 * A field that may be left out but not sent as `null`: its other rules apply whenever it is sent,
 * and `null` is a 400 naming the field. (`@IsOptional()` lets `null` through to the database,
 * which for a column that cannot be null was a 500.) Declare it first, so its message is the one
 * given for `null`.
 */
export const OptionalNotNull = (): PropertyDecorator =>
  applyDecorators(
    ValidateIf((_, value: unknown) => value !== undefined),
    IsDefined({ message: 'must not be null' }),
  );
