import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { json, type RequestHandler, type Response } from 'express';
import typeIs from 'type-is';
import { AppError, ValidationError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import type { AppRequest } from './request-context';

export const BODY_LIMIT = '64kb';
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * A larger body limit for one route (in bytes): a bulk import carries up to 1,000 leads. Every
 * other route keeps the contract's 64 KiB.
 */
export const BodyLimit = Reflector.createDecorator<number>();

// Not strict: a JSON primitive parses, and is then refused as "not an object" with a clear detail.
const parsers = new Map<number, RequestHandler>();
function jsonParser(limitBytes: number): RequestHandler {
  let parser = parsers.get(limitBytes);
  if (!parser) parsers.set(limitBytes, (parser = json({ limit: limitBytes, strict: false, type: () => true })));
  return parser;
}
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads the JSON body after the access checks. Express would parse it before them, but the
 * contract puts the key (401), plan and scope (403) and rate-limit (429) checks ahead of body
 * errors (400, 413, 415), so the app is created without a body parser and parses here: in the
 * last global guard, so that it runs after every other one. A guard rather than an interceptor:
 * with no interceptor at all, Nest skips its RxJS chain and two AsyncResource bindings on every
 * request (a verify took 28% less CPU without them; bench/README.md).
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AppRequest>();
    if (METHODS_WITH_BODY.has(request.method)) {
      const limitBytes = this.reflector.get(BodyLimit, context.getHandler()) ?? BODY_LIMIT_BYTES;
      await this.readBody(request, http.getResponse<Response>(), limitBytes);
    }
    return true;
  }

  private async readBody(request: AppRequest, response: Response, limitBytes: number): Promise<void> {
    // No body at all (or Content-Length: 0) is an empty object, so the DTO names the missing fields.
    if (!typeIs.hasBody(request) || request.headers['content-length'] === '0') {
      request.body = {};
      return;
    }
    if (!typeIs(request, ['application/json'])) {
      throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be sent as application/json.');
    }
    // A declared length over the limit is refused before any of the body is read. body-parser
    // would first read (and discard) the whole body and only then answer 413, so a client sending
    // 10 MB slowly learnt that it was too large only at the end of its upload, or never (Node's
    // 5-minute requestTimeout), holding the connection all along (test/e2e/faults.e2e-spec.ts).
    // The connection is closed after the answer rather than drained.
    if (Number(request.headers['content-length']) > limitBytes) throw tooLarge(response, limitBytes);
    await new Promise<void>((resolve, reject) => {
      jsonParser(limitBytes)(request, response, (error?: unknown) => (error ? reject(error) : resolve()));
      // body-parser notices a body without a declared length (chunked) passing the limit, but then
      // reads the rest of it before answering (20 MB of it, if sent). Counting here refuses it as
      // soon as it passes the limit; the connection is closed after the answer. Attached after
      // body-parser's own listener, in the same tick, so that no chunk passes either of them by.
      let received = 0;
      const countBytes = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limitBytes) return;
        request.off('data', countBytes);
        reject(tooLarge(response, limitBytes));
      };
      request.on('data', countBytes);
      request.once('end', () => request.off('data', countBytes));
    });
    const body: unknown = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ValidationError([{ field: 'body', message: 'must be a JSON object' }], 'The request body must be a JSON object.');
    }
  }
}

function tooLarge(response: Response, limitBytes: number): AppError {
  response.setHeader('Connection', 'close');
  const limit = limitBytes % (1024 * 1024) === 0 ? `${limitBytes / (1024 * 1024)} MiB` : `${limitBytes / 1024} KiB`;
  return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body is larger than ${limit}.`);
}
