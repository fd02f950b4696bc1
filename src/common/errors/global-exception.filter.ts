import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Response } from 'express';
import { Prisma } from '../../generated/prisma/client';
import { describeDatabaseError, driverErrorKindOf, isSchemaMissing, sqlStateOf } from '../../database/sql-state';
import type { AppRequest } from '../http/request-context';
import { AppError, FieldError, ValidationError } from './app-error';
import { ERROR_CATALOGUE, ErrorCode } from './error-codes';
import type { ErrorEnvelope } from './error-envelope';

export type { ErrorEnvelope } from './error-envelope';

/**
 * The code an answer of the framework's own (router, body parser, throttler) gets, by its status;
 * each code's status comes from the catalogue.
 */
const FRAMEWORK_CODES: readonly ErrorCode[] = [
  ErrorCode.VALIDATION_ERROR,
  ErrorCode.INVALID_API_KEY,
  ErrorCode.INSUFFICIENT_SCOPE,
  ErrorCode.NOT_FOUND,
  ErrorCode.CONFLICT,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.RATE_LIMIT_EXCEEDED,
  ErrorCode.SERVICE_UNAVAILABLE,
];
const CODE_BY_STATUS = new Map(FRAMEWORK_CODES.map((code) => [ERROR_CATALOGUE[code].status, code]));
const defaultMessage = (code: ErrorCode): string => ERROR_CATALOGUE[code].defaultMessage ?? 'The request could not be processed.';

/**
 * Prisma error codes that mean the database cannot be reached or cannot answer in time
 * (P2037: too many connections, PostgreSQL's 53300 as the pg adapter reports it).
 */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);

/**
 * The driver adapter's kinds of error for a server that cannot be reached or is overloaded. A
 * typed query maps them to P1001 and the like, a raw query ($queryRaw) reports them as P2010 with
 * the kind in meta.driverAdapterError alone (the fault tests saw 500s for raw reads and writes
 * during a PostgreSQL kill).
 */
const UNAVAILABLE_DRIVER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * PostgreSQL SQLSTATEs of a server that is going away, starting up or overloaded: class 08
 * (connection exception), 53300 too_many_connections, 57014 query_canceled (statement_timeout),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now ("the database system is
 * starting up" / "not yet accepting connections", answered to every connection during crash
 * recovery after a restart). The fault tests (test/e2e/faults.e2e-spec.ts) showed that Prisma
 * reports these as P2039 "Database error" (P2010 for raw queries), so they were answered 500.
 */
const UNAVAILABLE_SQLSTATES = new Set(['53300', '57014', '57P01', '57P02', '57P03']);
const isUnavailableSqlState = (code: unknown): boolean => typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code));
const RETRY_AFTER_SECONDS = '5';

/**
 * A transaction that lost to a concurrent one and can simply be run again: Prisma's P2034 ("write
 * conflict or a deadlock"), 40001 serialization_failure, 40P01 deadlock_detected and 55P03
 * lock_not_available (lock_timeout) as raw queries report them. Answered 503 with a short
 * Retry-After, never 500: DELETE /webhooks/:id answered 500 when it deadlocked with the delivery
 * worker (since fixed at its cause; this stays for whatever conflict is left).
 */
const CONFLICT_SQLSTATES = new Set(['40001', '40P01', '55P03']);
const CONFLICT_RETRY_AFTER_SECONDS = '1';
const SCHEMA_MISSING_LOG_INTERVAL_MS = 60_000;

/**
 * pg's own messages: a lost connection, the pool's and the client's connect timeouts,
 * query_timeout ("Query read timeout", when the server stops answering altogether), and the
 * refusal of a client whose connection already failed: the next query of a transaction (or its
 * ROLLBACK) after the server went away mid-transaction. And the pool's refusal once a shutdown
 * closed it: a request that outlived the grace (its connection is cut already).
 */
const LOST_CONNECTION =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool/i;

/**
 * Writes the error envelope for everything thrown anywhere in the app, including unknown
 * routes and framework errors. The unexpected becomes a logged 500 with no internals exposed.
 */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private schemaMissingLoggedAt = -Infinity;

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(exception, http.getRequest<AppRequest>(), http.getResponse<Response>());
  }

  /** Writes the answer to an exception; also for refusals made before Nest's routing (the HTTPS rule). */
  reply(exception: unknown, request: AppRequest, response: Response): void {
    const { status, headers, body } = this.answerTo(exception, request);
    if (response.headersSent) {
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.status(status).json(body);
  }

  /**
   * The answer an exception gets: its status, headers and envelope. Public for answers that are
   * already under way (a server-sent event stream reports a late error as an `error` event).
   */
  answerTo(exception: unknown, request: AppRequest): { status: number; headers: Record<string, string>; body: ErrorEnvelope } {
    const appError = this.toAppError(exception, request);
    const body: ErrorEnvelope = {
      error: {
        code: appError.code,
        message: appError.message,
        status: appError.status,
        requestId: request.id,
        ...cappedDetails(appError.details),
      },
    };
    return { status: appError.status, headers: appError.headers, body };
  }

  private toAppError(exception: unknown, request: AppRequest): AppError {
    if (exception instanceof AppError) return exception;
    if (exception instanceof ThrottlerException) {
      return new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, defaultMessage(ErrorCode.RATE_LIMIT_EXCEEDED));
    }
    if (exception instanceof HttpException) return this.fromHttpException(exception);
    if (isSchemaMissing(exception)) {
      // Every request fails alike until someone migrates: one line a minute says so.
      const now = Date.now();
      if (now - this.schemaMissingLoggedAt >= SCHEMA_MISSING_LOG_INTERVAL_MS) {
        this.schemaMissingLoggedAt = now;
        this.logger.error(
          `Answering 503 while serving ${request.method} ${request.route?.path ?? 'unknown route'} (request ${request.id}): ${describeDatabaseError(exception)}`,
        );
      }
      return new AppError(ErrorCode.SERVICE_UNAVAILABLE, defaultMessage(ErrorCode.SERVICE_UNAVAILABLE), undefined, { 'Retry-After': RETRY_AFTER_SECONDS });
    }
    if (isTransientConflict(exception)) {
      this.logger.warn(
        `Answering 503 to a database conflict while serving ${request.method} ${request.route?.path ?? 'unknown route'} (request ${request.id}): ${describe(exception)}`,
      );
      return new AppError(ErrorCode.SERVICE_UNAVAILABLE, defaultMessage(ErrorCode.SERVICE_UNAVAILABLE), undefined, {
        'Retry-After': CONFLICT_RETRY_AFTER_SECONDS,
      });
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(
        `Database unavailable while serving ${request.method} ${request.route?.path ?? 'unknown route'} (request ${request.id}): ${describe(exception)}`,
      );
      return new AppError(ErrorCode.SERVICE_UNAVAILABLE, defaultMessage(ErrorCode.SERVICE_UNAVAILABLE), undefined, {
        'Retry-After': RETRY_AFTER_SECONDS,
      });
    }
    const bodyParserError = fromBodyParserError(exception);
    if (bodyParserError) return bodyParserError;

    this.logger.error(
      `Unhandled error on ${request.method} ${request.route?.path ?? 'unknown route'} (request ${request.id})`,
      exception instanceof Error ? exception.stack : String(exception),
    );
    return new AppError(ErrorCode.INTERNAL_ERROR, defaultMessage(ErrorCode.INTERNAL_ERROR));
  }

  private fromHttpException(exception: HttpException): AppError {
    const status = exception.getStatus() === HttpStatus.METHOD_NOT_ALLOWED ? 404 : exception.getStatus();
    const code = CODE_BY_STATUS.get(status) ?? (status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.VALIDATION_ERROR);
    const message = defaultMessage(code);
    // The framework's own 400s (a path that is not valid percent-encoding) concern the request line.
    if (code === ErrorCode.VALIDATION_ERROR) return new ValidationError([{ field: 'path', message: 'is not a valid request path' }], message);
    return new AppError(code, message);
  }
}

function isTransientConflict(exception: unknown): boolean {
  if (exception instanceof Prisma.PrismaClientKnownRequestError && exception.code === 'P2034') return true;
  const state = sqlStateOf(exception) ?? (exception instanceof Error ? (exception as { code?: unknown }).code : undefined);
  return typeof state === 'string' && CONFLICT_SQLSTATES.has(state);
}

function isDatabaseUnavailable(exception: unknown): boolean {
  if (exception instanceof Prisma.PrismaClientInitializationError) return true;
  if (exception instanceof Prisma.PrismaClientKnownRequestError) {
    return (
      UNAVAILABLE_PRISMA_CODES.has(exception.code) ||
      UNAVAILABLE_DRIVER_KINDS.has(driverErrorKindOf(exception) ?? '') ||
      isUnavailableSqlState(sqlStateOf(exception)) ||
      LOST_CONNECTION.test(exception.message)
    );
  }
  if (exception instanceof Error) {
    const code = (exception as { code?: unknown }).code;
    return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT'].includes(String(code)) || isUnavailableSqlState(code) || LOST_CONNECTION.test(exception.message);
  }
  return false;
}

function fromBodyParserError(exception: unknown): AppError | undefined {
  const type = (exception as { type?: unknown } | null)?.type;
  // Refused as soon as the limit is passed (a chunked body declares no length); the connection is
  // closed after the answer, so the rest of the body is not read.
  if (type === 'entity.too.large')
    return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, defaultMessage(ErrorCode.PAYLOAD_TOO_LARGE), undefined, { Connection: 'close' });
  if (type === 'entity.parse.failed') return new ValidationError([{ field: 'body', message: 'must be valid JSON' }], 'The request body is not valid JSON.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be UTF-8 encoded JSON.');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ValidationError([{ field: 'body', message: 'was incomplete' }], 'The request body was incomplete.');
  }
  // Anything else body-parser refuses with a client status (a body that does not match its
  // Content-Encoding, for one) is a body that could not be read.
  const status = (exception as { status?: unknown } | null)?.status;
  if (typeof type === 'string' || (typeof status === 'number' && status >= 400 && status < 500 && exception instanceof Error && 'expose' in exception)) {
    return new ValidationError([{ field: 'body', message: 'could not be decoded' }], 'The request body could not be read.');
  }
  return undefined;
}

/** At most MAX_DETAILS field errors, and the count of the rest: an answer never echoes thousands of field names. */
export const MAX_DETAILS = 20;
/** A field named longer than this (an unknown field's name is the client's text) is cut, with an ellipsis. */
export const MAX_FIELD_LENGTH = 64;

function cappedDetails(details: FieldError[] | undefined): { details?: FieldError[]; moreDetails?: number } {
  if (!details) return {};
  const shown = details.slice(0, MAX_DETAILS).map(({ field, message }) => ({ field: truncatedField(field), message }));
  return details.length <= MAX_DETAILS ? { details: shown } : { details: shown, moreDetails: details.length - MAX_DETAILS };
}

/** The field's first MAX_FIELD_LENGTH UTF-16 units (never half of a surrogate pair) and `…`: a 3 MB name is not echoed. */
function truncatedField(field: string): string {
  if (field.length <= MAX_FIELD_LENGTH) return field;
  const cut = /[\uD800-\uDBFF]$/.test(field.slice(0, MAX_FIELD_LENGTH)) ? MAX_FIELD_LENGTH - 1 : MAX_FIELD_LENGTH;
  return `${field.slice(0, cut)}…`;
}

function describe(exception: unknown): string {
  return exception instanceof Error ? `${exception.name}: ${exception.message.split('\n')[0]}` : String(exception);
}
