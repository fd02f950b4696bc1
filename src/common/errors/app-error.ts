import { ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** An error the API answers with on purpose: its code, status and message reach the client. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly details?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class ValidationError extends AppError {
  constructor(details: FieldError[], message = 'The request has invalid fields.') {
    super(ErrorCode.VALIDATION_ERROR, 400, message, details);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string) {
    super(ErrorCode.NOT_FOUND, 404, `${resource} not found.`);
  }
}

export class InvalidApiKeyError extends AppError {
  constructor() {
    super(ErrorCode.INVALID_API_KEY, 401, 'The API key is missing, invalid or expired.');
  }
}

export class InsufficientScopeError extends AppError {
  constructor(message: string) {
    super(ErrorCode.INSUFFICIENT_SCOPE, 403, message);
  }
}

export class PlanUpgradeRequiredError extends AppError {
  constructor(message = 'API access requires the Pro plan or higher.') {
    super(ErrorCode.PLAN_UPGRADE_REQUIRED, 403, message);
  }
}
