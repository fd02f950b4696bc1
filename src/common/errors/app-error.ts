import { ERROR_CATALOGUE, ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * An error the API answers with on purpose: its code and message reach the client, with the
 * status the error catalogue gives the code.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export class ValidationError extends AppError {
  constructor(details: FieldError[], message = 'The request has invalid fields.') {
    super(ErrorCode.VALIDATION_ERROR, message, details);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string) {
    super(ErrorCode.NOT_FOUND, `${resource} not found.`);
  }
}

export class InvalidApiKeyError extends AppError {
  constructor() {
    super(ErrorCode.INVALID_API_KEY, 'The API key is missing, invalid or expired.');
  }
}

export class InsufficientScopeError extends AppError {
  constructor(message: string) {
    super(ErrorCode.INSUFFICIENT_SCOPE, message);
  }
}

export class PlanUpgradeRequiredError extends AppError {
  constructor(message = 'API access requires the Pro plan or higher.') {
    super(ErrorCode.PLAN_UPGRADE_REQUIRED, message);
  }
}
