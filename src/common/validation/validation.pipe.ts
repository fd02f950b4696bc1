import { ArgumentMetadata, ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationError } from '../errors/app-error';
import { NoQueryDto } from '../paging/pagination';
import { inspectInput } from './input-guard';

/** Runs the raw-input checks of inspectInput before class-transformer sees the value. */
class GuardedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Most hot reads take no parameters, and the empty query is then the only valid one: it needs
    // neither class-transformer nor class-validator (3% of a verify's CPU).
    if (metadata.metatype === NoQueryDto && isEmptyObject(value)) return new NoQueryDto();
    if (metadata.type === 'body' || metadata.type === 'query') {
      const problems = inspectInput(value, '');
      if (problems.length) throw new ValidationError(problems.map((problem) => ({ ...problem, field: problem.field || metadata.type })));
    }
    return super.transform(value, metadata);
  }
}

/**
 * The global pipe: DTOs are whitelisted, unknown fields are rejected, and every broken rule is
 * listed per field. Messages name the rule, never the submitted value.
 */
export function createValidationPipe(): ValidationPipe {
  return new GuardedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationError(flattenErrors(errors)),
  });
}

export function flattenErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    // One detail per field: the rule declared first (a type rule before its bounds). Property
    // decorators apply bottom-up, so class-validator runs and lists them last-declared first.
    // Nested validation reports last whatever the order, so another broken rule goes first.
    const constraints = Object.entries(error.constraints ?? {});
    const broken = constraints.filter(([rule]) => rule !== 'nestedValidation').at(-1) ?? constraints.at(-1);
    const own = broken
      ? [{ field, message: broken[0] === 'whitelistValidation' ? 'is not an allowed field' : stripPropertyName(broken[1], error.property) }]
      : [];
    return [...own, ...flattenErrors(error.children ?? [], field)];
  });
}

function stripPropertyName(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
