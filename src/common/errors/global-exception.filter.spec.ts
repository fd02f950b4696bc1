import {
  BadRequestException,
  HttpException,
  InternalServerErrorException,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ThrottlerException } from '@nestjs/throttler';
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { Prisma } from '../../generated/prisma/client';
import type { AppRequest } from '../http/request-context';
import { AppError, NotFoundError, ValidationError } from './app-error';
import { ErrorCode } from './error-codes';
import { ErrorEnvelope, GlobalExceptionFilter } from './global-exception.filter';

const REQUEST_ID = 'req-0123456789';
const CLIENT_VERSION = '7.10.0';

/** The slice of an Express response the filter writes to. */
class FakeResponse {
  statusCode?: number;
  body?: ErrorEnvelope;
  headers: Record<string, string> = {};
  ended = false;

  constructor(readonly headersSent = false) {}

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  json(body: ErrorEnvelope): this {
    this.body = body;
    return this;
  }

  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  end(): this {
    this.ended = true;
    return this;
  }
}

function handle(exception: unknown, response = new FakeResponse()): FakeResponse {
  const request = { id: REQUEST_ID, method: 'GET', route: { path: '/api/v1/leads' } } as unknown as AppRequest;
  new GlobalExceptionFilter().catch(exception, new ExecutionContextHost([request, response, () => undefined]));
  return response;
}

const envelope = (code: string, status: number, message: string | jest.AsymmetricMatcher = expect.any(String)) => ({
  error: { code, message, status, requestId: REQUEST_ID },
});

/**
 * What Prisma 7 throws for a PostgreSQL error the pg adapter has no kind for: P2039 "Database
 * error" with the SQLSTATE in meta.driverAdapterError (as seen in test/e2e/faults.e2e-spec.ts).
 */
const databaseError = (sqlState: string, message: string) =>
  new Prisma.PrismaClientKnownRequestError(`Database error. Code: \`${sqlState}\`. Message: \`${message}\``, {
    code: 'P2039',
    clientVersion: CLIENT_VERSION,
    meta: {
      modelName: 'ApiKey',
      driverAdapterError: new DriverAdapterError({
        kind: 'postgres',
        code: sqlState,
        severity: 'FATAL',
        message,
        detail: undefined,
        column: undefined,
        hint: undefined,
        originalCode: sqlState,
        originalMessage: message,
      }),
    },
  });

const bodyParserError = (type: string, status: number, message: string) =>
  Object.assign(new Error(message), { type, status, statusCode: status, expose: true });

describe('GlobalExceptionFilter', () => {
  let errorLog: jest.SpyInstance;
  let warnLog: jest.SpyInstance;

  beforeEach(() => {
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    warnLog = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  describe('AppError', () => {
    it('writes code, message, status and the request id', () => {
      const response = handle(new AppError(ErrorCode.PLAN_UPGRADE_REQUIRED, 'API access requires the Pro plan or higher.'));
      expect(response.statusCode).toBe(403);
      expect(response.body).toEqual(envelope('PLAN_UPGRADE_REQUIRED', 403, 'API access requires the Pro plan or higher.'));
      expect(response.body?.error).not.toHaveProperty('details');
    });

    it('adds details on a validation error', () => {
      const response = handle(new ValidationError([{ field: 'email', message: 'must be a valid e-mail address' }]));
      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: 'The request has invalid fields.',
          status: 400,
          requestId: REQUEST_ID,
          details: [{ field: 'email', message: 'must be a valid e-mail address' }],
        },
      });
    });

    it('sets the headers an AppError carries', () => {
      const response = handle(new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, 'Hourly rate limit exceeded.', undefined, { 'Retry-After': '17' }));
      expect(response.statusCode).toBe(429);
      expect(response.headers).toEqual({ 'Retry-After': '17' });
      expect(response.body).toEqual(envelope('RATE_LIMIT_EXCEEDED', 429, 'Hourly rate limit exceeded.'));
    });

    it('answers subclasses with their own code', () => {
      expect(handle(new NotFoundError('Lead')).body).toEqual(envelope('NOT_FOUND', 404, 'Lead not found.'));
    });

    it('does not log expected errors', () => {
      handle(new NotFoundError('Bot'));
      expect(errorLog).not.toHaveBeenCalled();
    });
  });

  describe('HttpException', () => {
    it.each([
      ['NotFoundException', new NotFoundException('Cannot GET /nope'), 404, 'NOT_FOUND'],
      ['MethodNotAllowedException (405 becomes 404)', new MethodNotAllowedException(), 404, 'NOT_FOUND'],
      ['PayloadTooLargeException', new PayloadTooLargeException(), 413, 'PAYLOAD_TOO_LARGE'],
      ['UnsupportedMediaTypeException', new UnsupportedMediaTypeException(), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a plain 404 HttpException', new HttpException('gone', 404), 404, 'NOT_FOUND'],
      ['InternalServerErrorException', new InternalServerErrorException('db password is hunter2'), 500, 'INTERNAL_ERROR'],
    ])('maps %s', (_, exception, status, code) => {
      const response = handle(exception);
      expect(response.statusCode).toBe(status);
      expect(response.body).toEqual(envelope(code, status));
    });

    it("maps the framework's own 400 (an undecodable path) to VALIDATION_ERROR with a detail on the path", () => {
      const response = handle(new BadRequestException('Failed to decode param'));
      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual({
        error: { ...envelope('VALIDATION_ERROR', 400).error, details: [{ field: 'path', message: 'is not a valid request path' }] },
      });
    });

    it("never passes the framework's message through", () => {
      const response = handle(new NotFoundException('Cannot GET /admin/v1/secret-path?token=abc'));
      expect(response.body?.error.message).toBe('The requested resource does not exist.');
      expect(JSON.stringify(response.body)).not.toContain('token=abc');
      expect(JSON.stringify(handle(new InternalServerErrorException('db password is hunter2')).body)).not.toContain('hunter2');
    });
  });

  it('maps ThrottlerException to 429 RATE_LIMIT_EXCEEDED', () => {
    const response = handle(new ThrottlerException());
    expect(response.statusCode).toBe(429);
    expect(response.body).toEqual(envelope('RATE_LIMIT_EXCEEDED', 429));
    expect(response.body?.error.message).not.toContain('ThrottlerException');
  });

  describe('body-parser errors', () => {
    it('maps entity.too.large to 413 PAYLOAD_TOO_LARGE', () => {
      const response = handle(bodyParserError('entity.too.large', 413, 'request entity too large'));
      expect(response.statusCode).toBe(413);
      expect(response.body).toEqual(envelope('PAYLOAD_TOO_LARGE', 413, 'The request body is larger than 64 KiB.'));
    });

    it('maps entity.parse.failed to 400 VALIDATION_ERROR without echoing the body', () => {
      const response = handle(bodyParserError('entity.parse.failed', 400, 'Unexpected token s in JSON at position 9: {"name": secret-body}'));
      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: 'The request body is not valid JSON.',
          status: 400,
          requestId: REQUEST_ID,
          details: [{ field: 'body', message: expect.any(String) }],
        },
      });
      expect(JSON.stringify(response.body)).not.toContain('secret-body');
      expect(JSON.stringify(response.body)).not.toContain('Unexpected token');
    });

    it.each(['encoding.unsupported', 'charset.unsupported'])('maps %s to 415 UNSUPPORTED_MEDIA_TYPE', (type) => {
      const response = handle(bodyParserError(type, 415, 'unsupported charset "LATIN1"'));
      expect(response.statusCode).toBe(415);
      expect(response.body).toEqual(envelope('UNSUPPORTED_MEDIA_TYPE', 415));
    });

    it('maps an aborted body to 400 VALIDATION_ERROR with a detail on the body', () => {
      const response = handle(bodyParserError('request.aborted', 400, 'request aborted'));
      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.any(String),
          status: 400,
          requestId: REQUEST_ID,
          details: [{ field: 'body', message: expect.any(String) }],
        },
      });
    });
  });

  describe('database unavailability', () => {
    it.each([
      [
        'P1001 (cannot reach the server)',
        new Prisma.PrismaClientKnownRequestError("Can't reach database server", { code: 'P1001', clientVersion: CLIENT_VERSION }),
      ],
      [
        'P2024 (pool timeout)',
        new Prisma.PrismaClientKnownRequestError('Timed out fetching a new connection from the connection pool', {
          code: 'P2024',
          clientVersion: CLIENT_VERSION,
        }),
      ],
      ['PrismaClientInitializationError', new Prisma.PrismaClientInitializationError('Authentication failed against database server', CLIENT_VERSION)],
      ['ECONNREFUSED from the driver', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })],
      ['a terminated connection', new Error('Connection terminated unexpectedly')],
      ['a statement timeout (57014)', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
      [
        'P2037 (too many connections)',
        new Prisma.PrismaClientKnownRequestError('Too many database connections opened', { code: 'P2037', clientVersion: CLIENT_VERSION }),
      ],
      ['P2039 57P03 (crash recovery after a restart)', databaseError('57P03', 'the database system is not yet accepting connections')],
      ['P2039 57P01 (immediate or fast shutdown)', databaseError('57P01', 'terminating connection due to administrator command')],
      ['P2039 57014 (statement_timeout)', databaseError('57014', 'canceling statement due to statement timeout')],
      ['P2039 08006 (connection failure)', databaseError('08006', 'connection failure')],
      ["pg's query_timeout", new Error('Query read timeout')],
      ['a query on a client whose connection failed mid-transaction', new Error('Client has encountered a connection error and is not queryable')],
      ['a query after a shutdown closed the pool', new Error('Cannot use a pool after calling end on the pool')],
      [
        'the same, reported by Prisma',
        new Prisma.PrismaClientKnownRequestError('Client has encountered a connection error and is not queryable', {
          code: 'P2010',
          clientVersion: CLIENT_VERSION,
        }),
      ],
      ...(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'] as const).map((kind) => [
        `a raw query's P2010 whose driver adapter error is ${kind}`,
        new Prisma.PrismaClientKnownRequestError("Raw query failed. Code: `N/A`. Message: `Can't reach database server at 10.0.0.5:5432`", {
          code: 'P2010',
          clientVersion: CLIENT_VERSION,
          meta: { driverAdapterError: new DriverAdapterError({ kind, host: '10.0.0.5', port: 5432 } as never) },
        }),
      ]),
    ] as [string, unknown][])('answers 503 SERVICE_UNAVAILABLE with Retry-After for %s', (_, exception) => {
      const response = handle(exception);
      expect(response.statusCode).toBe(503);
      expect(response.body).toEqual(envelope('SERVICE_UNAVAILABLE', 503));
      expect(response.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
      expect(JSON.stringify(response.body)).not.toMatch(/10\.0\.0\.5|Authentication|connection pool|statement timeout/);
      expect(warnLog).toHaveBeenCalled();
    });

    it.each([
      [
        'P2034 (write conflict or deadlock)',
        new Prisma.PrismaClientKnownRequestError('Transaction failed due to a write conflict or a deadlock. Please retry your transaction', {
          code: 'P2034',
          clientVersion: CLIENT_VERSION,
        }),
      ],
      ['P2039 40P01 (deadlock_detected)', databaseError('40P01', 'deadlock detected')],
      ['P2039 40001 (serialization_failure)', databaseError('40001', 'could not serialize access due to concurrent update')],
      ['P2039 55P03 (lock_timeout)', databaseError('55P03', 'canceling statement due to lock timeout')],
      ['40P01 from the driver', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ] as [string, unknown][])('answers 503 SERVICE_UNAVAILABLE with Retry-After: 1 for %s', (_, exception) => {
      const response = handle(exception);
      expect(response.statusCode).toBe(503);
      expect(response.body).toEqual(envelope('SERVICE_UNAVAILABLE', 503));
      expect(response.headers['Retry-After']).toBe('1');
      expect(JSON.stringify(response.body)).not.toMatch(/deadlock|serialize|lock timeout|conflict/);
      expect(warnLog).toHaveBeenCalled();
    });

    it('does not treat other Prisma errors as unavailability', () => {
      const response = handle(
        new Prisma.PrismaClientKnownRequestError('Unique constraint failed on the fields: (`slug`)', { code: 'P2002', clientVersion: CLIENT_VERSION }),
      );
      expect(response.statusCode).toBe(500);
      expect(response.body).toEqual(envelope('INTERNAL_ERROR', 500));
      expect(response.headers).not.toHaveProperty('Retry-After');
      expect(JSON.stringify(response.body)).not.toContain('slug');
    });

    it('does not treat other PostgreSQL errors behind P2039 as unavailability', () => {
      const response = handle(databaseError('22012', 'division by zero'));
      expect(response.statusCode).toBe(500);
      expect(response.body).toEqual(envelope('INTERNAL_ERROR', 500));
      expect(response.headers).not.toHaveProperty('Retry-After');
    });
  });

  describe('unknown errors', () => {
    it('answer 500 INTERNAL_ERROR without the message or the stack, and are logged with the stack', () => {
      const exception = new TypeError("Cannot read properties of undefined (reading 'tenantId') SECRET-DETAIL");
      const response = handle(exception);
      expect(response.statusCode).toBe(500);
      expect(response.body).toEqual(envelope('INTERNAL_ERROR', 500));
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('SECRET-DETAIL');
      expect(text).not.toContain('tenantId');
      expect(text).not.toContain('TypeError');
      expect(text).not.toContain(__filename);
      expect(text).not.toMatch(/\bat \S+ \(/);
      expect(response.headers).toEqual({});
      expect(errorLog).toHaveBeenCalledTimes(1);
      expect(errorLog.mock.calls[0].join('\n')).toContain('SECRET-DETAIL');
      expect(errorLog.mock.calls[0].join('\n')).toContain(REQUEST_ID);
    });

    it.each([
      ['a string', 'boom'],
      ['undefined', undefined],
      ['null', null],
      ['a plain object', { message: 'not an Error', stack: 'fake stack' }],
    ])('answer 500 INTERNAL_ERROR when %s is thrown', (_, exception) => {
      const response = handle(exception);
      expect(response.statusCode).toBe(500);
      expect(response.body).toEqual(envelope('INTERNAL_ERROR', 500));
      expect(JSON.stringify(response.body)).not.toMatch(/boom|not an Error|fake stack/);
    });
  });

  it('only ends the response when the headers were already sent', () => {
    const response = handle(new Error('late failure'), new FakeResponse(true));
    expect(response.ended).toBe(true);
    expect(response.statusCode).toBeUndefined();
    expect(response.body).toBeUndefined();
  });
});
