/** Every machine-readable error code the API answers with (SPEC 7 and API_DECISIONS). */
export const ErrorCode = {
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  INVALID_API_KEY: 'INVALID_API_KEY',
  INSUFFICIENT_SCOPE: 'INSUFFICIENT_SCOPE',
  PLAN_UPGRADE_REQUIRED: 'PLAN_UPGRADE_REQUIRED',
  HTTPS_REQUIRED: 'HTTPS_REQUIRED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PLAN_LIMIT_REACHED: 'PLAN_LIMIT_REACHED',
  INVALID_STATUS_TRANSITION: 'INVALID_STATUS_TRANSITION',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_USE: 'IDEMPOTENCY_KEY_IN_USE',
  IDEMPOTENCY_RECORD_ERASED: 'IDEMPOTENCY_RECORD_ERASED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMIT_EXCEEDED: 'RATE_LIMIT_EXCEEDED',
  INVALID_VISITOR_TOKEN: 'INVALID_VISITOR_TOKEN',
  INVALID_IDENTITY_TOKEN: 'INVALID_IDENTITY_TOKEN',
  IDENTITY_REQUIRED: 'IDENTITY_REQUIRED',
  ORIGIN_NOT_ALLOWED: 'ORIGIN_NOT_ALLOWED',
  BOT_INACTIVE: 'BOT_INACTIVE',
  CONVERSATION_ENDED: 'CONVERSATION_ENDED',
  LEAD_CAPTURE_DISABLED: 'LEAD_CAPTURE_DISABLED',
  LEAD_ALREADY_CAPTURED: 'LEAD_ALREADY_CAPTURED',
  MESSAGE_LIMIT_REACHED: 'MESSAGE_LIMIT_REACHED',
  DELIVERY_IN_FLIGHT: 'DELIVERY_IN_FLIGHT',
  INVALID_SESSION: 'INVALID_SESSION',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  CSRF_REJECTED: 'CSRF_REJECTED',
  TENANT_REQUIRED: 'TENANT_REQUIRED',
  NOT_A_MEMBER: 'NOT_A_MEMBER',
  INSUFFICIENT_ROLE: 'INSUFFICIENT_ROLE',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  SIGNUP_CLOSED: 'SIGNUP_CLOSED',
  LAST_OWNER: 'LAST_OWNER',
  INVITATION_EXPIRED: 'INVITATION_EXPIRED',
  ALREADY_ASSIGNED: 'ALREADY_ASSIGNED',
  HANDOFF_DISABLED: 'HANDOFF_DISABLED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ErrorCodeEntry {
  /** The HTTP status every answer with this code has. */
  status: number;
  /** When the API answers with it, as the error table of docs/api.md and the OpenAPI document say. */
  when: string;
  /** The message of an answer the framework produced (body parser, router, throttler). */
  defaultMessage?: string;
}

/** The one table of error codes: each code's status, meaning and default message. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, ErrorCodeEntry>> = {
  VALIDATION_ERROR: {
    status: 400,
    when: 'invalid parameters or body, unknown fields or parameters, or malformed JSON; `details` names each field',
    defaultMessage: 'The request is invalid.',
  },
  INVALID_API_KEY: { status: 401, when: 'the API key is missing, malformed, unknown, expired or deleted' },
  UNAUTHORIZED: { status: 401, when: 'the admin bearer token is missing or wrong' },
  HTTPS_REQUIRED: { status: 403, when: 'the request came over plain HTTP' },
  PLAN_UPGRADE_REQUIRED: { status: 403, when: "the tenant's plan has no API access (Free)" },
  INSUFFICIENT_SCOPE: { status: 403, when: "the key lacks the endpoint's scope, or is a public key" },
  PLAN_LIMIT_REACHED: { status: 403, when: "the plan's bot limit is reached" },
  NOT_FOUND: {
    status: 404,
    when: 'the resource does not exist or is not the tenant’s (malformed ids included)',
    defaultMessage: 'The requested resource does not exist.',
  },
  CONFLICT: { status: 409, when: 'the resource already exists' },
  INVALID_STATUS_TRANSITION: { status: 409, when: 'the lead status machine does not allow this move' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, when: 'the `Idempotency-Key` was already used in the last 24 hours with a different request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, when: 'a request with the same `Idempotency-Key` is still being processed; retry shortly' },
  IDEMPOTENCY_RECORD_ERASED: {
    status: 410,
    when: 'a retry with an `Idempotency-Key` whose first answer held personal data erased since (privacy erasure): nothing is replayed or created again',
  },
  PAYLOAD_TOO_LARGE: { status: 413, when: 'the body is larger than 64 KiB', defaultMessage: 'The request body is larger than 64 KiB.' },
  HEADERS_TOO_LARGE: { status: 431, when: 'the request headers are larger than 16 KiB (answered by the HTTP server before routing; the connection is closed)' },
  REQUEST_TIMEOUT: { status: 408, when: 'the request (headers and body) did not arrive within 30 seconds; the connection is closed' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    when: 'the body is not UTF-8 `application/json`',
    defaultMessage: 'The request body must be sent as application/json.',
  },
  RATE_LIMIT_EXCEEDED: {
    status: 429,
    when: "the tenant's hourly or burst limit is used up, this address's public-key limit is used up, or too many failed authentications came from this address",
    defaultMessage: 'Rate limit exceeded.',
  },
  INVALID_VISITOR_TOKEN: { status: 401, when: 'the widget call lacks `X-Visitor-Token`, or it is malformed, forged, expired, or for another bot' },
  INVALID_IDENTITY_TOKEN: {
    status: 401,
    when: "the widget session's `identityToken` is not an HS256 JWT signed with the tenant's identity secret (or no secret is configured), or its `sub`, `iat`, `exp` (past, or more than 24 h after `iat`), `email` or `name` is missing or invalid",
  },
  IDENTITY_REQUIRED: {
    status: 401,
    when: 'the tenant requires identified visitors (`identityVerification.required`) and the widget session has no `identityToken`',
  },
  ORIGIN_NOT_ALLOWED: { status: 403, when: "the browser's `Origin` is not one of the tenant's `allowedOrigins`" },
  BOT_INACTIVE: { status: 409, when: 'the bot is inactive: its widget is not loaded and it answers no messages' },
  CONVERSATION_ENDED: { status: 409, when: 'the conversation has ended and takes no more messages or leads' },
  LEAD_CAPTURE_DISABLED: { status: 409, when: "the tenant's lead capture is off" },
  LEAD_ALREADY_CAPTURED: { status: 409, when: 'the conversation already has its lead' },
  MESSAGE_LIMIT_REACHED: { status: 429, when: "the plan's monthly message limit is reached; `Retry-After` gives the seconds to the next month (UTC)" },
  DELIVERY_IN_FLIGHT: { status: 409, when: 'the webhook delivery is being sent right now; retry it once this attempt is recorded' },
  INVALID_SESSION: { status: 401, when: 'the `svc_session` cookie is missing, unknown, expired (12 hours idle, 7 days at most) or ended' },
  INVALID_CREDENTIALS: { status: 401, when: 'the e-mail and password do not match a user (the same answer, in the same time, for an unknown e-mail)' },
  CSRF_REJECTED: { status: 403, when: "a cookie-authenticated POST, PUT, PATCH or DELETE (or a log-in or sign-up) whose `Origin` is not the service's own" },
  TENANT_REQUIRED: { status: 400, when: 'a signed-in user called a tenant route without `X-Tenant-Id` (or with a malformed one)' },
  NOT_A_MEMBER: { status: 403, when: 'the signed-in user is not a member of the tenant named in `X-Tenant-Id`' },
  INSUFFICIENT_ROLE: { status: 403, when: "the user's role in the tenant does not allow this (see the roles table)" },
  EMAIL_TAKEN: { status: 409, when: 'a user with this e-mail already exists' },
  SIGNUP_CLOSED: { status: 403, when: 'sign-up is turned off on this service (`SIGNUP=closed`); ask for an invitation' },
  LAST_OWNER: { status: 409, when: 'the change would leave the tenant without an owner' },
  INVITATION_EXPIRED: { status: 410, when: 'the invitation was used, deleted, or is past its 7 days' },
  ALREADY_ASSIGNED: { status: 409, when: 'another user holds the conversation; send `force: true` to take it over' },
  HANDOFF_DISABLED: { status: 409, when: "the bot's handoff setting is off: the visitor cannot ask for a person" },
  INTERNAL_ERROR: {
    status: 500,
    when: 'an unexpected error; quote the request id',
    defaultMessage: 'An internal error occurred. Quote the request id when reporting it.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    when: 'the database is unreachable, busy (pool exhausted, statement timeout, a lock or deadlock conflict) or not migrated; retry after `Retry-After` seconds',
    defaultMessage: 'The service is temporarily unavailable. Retry shortly.',
  },
};
