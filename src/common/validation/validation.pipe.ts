import { ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationError } from '../errors/app-error';

/**
 * The global pipe: DTOs are whitelisted, unknown fields are rejected, and every broken rule is
 * listed per field. Messages name the rule, never the submitted value.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    stopAtFirstError: true,
    exceptionFactory: (errors) => new ValidationError(flattenErrors(errors)),
  });
}

export function flattenErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => ({
      field,
      message: rule === 'whitelistValidation' ? 'is not an allowed field' : stripPropertyName(message, error.property),
    }));
    return [...own, ...flattenErrors(error.children ?? [], field)];
  });
}

function stripPropertyName(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
