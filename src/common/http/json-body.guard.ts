import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { json, type Response } from 'express';
import typeIs from 'type-is';
import { AppError, ValidationError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import type { AppRequest } from './request-context';

export const BODY_LIMIT = '64kb';
const BODY_LIMIT_BYTES = 64 * 1024;
// Not strict: a JSON primitive parses, and is then refused as "not an object" with a clear detail.
const parseJson = json({ limit: BODY_LIMIT, strict: false, type: () => true });
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads the JSON body after the access checks. Express would parse it before them, but the
 * contract puts the key (401), plan and scope (403) and rate-limit (429) checks ahead of body
 * errors (400, 413, 415), so the app is created without a body parser and parses here: in the
 * last global guard, so that it runs after every other one. A guard rather than an interceptor:
 * with no interceptor at all, Nest skips its RxJS chain and two AsyncResource bindings on every
 * request (a verify took 28% less CPU without them; README, Benchmark).
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AppRequest>();
    if (METHODS_WITH_BODY.has(request.method)) await this.readBody(request, http.getResponse<Response>());
    return true;
  }

  private async readBody(request: AppRequest, response: Response): Promise<void> {
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
    if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) throw tooLarge(response);
    await new Promise<void>((resolve, reject) => {
      parseJson(request, response, (error?: unknown) => (error ? reject(error) : resolve()));
      // body-parser notices a body without a declared length (chunked) passing the limit, but then
      // reads the rest of it before answering (20 MB of it, if sent). Counting here refuses it as
      // soon as it passes the limit; the connection is closed after the answer. Attached after
      // body-parser's own listener, in the same tick, so that no chunk passes either of them by.
      let received = 0;
      const countBytes = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= BODY_LIMIT_BYTES) return;
        request.off('data', countBytes);
        reject(tooLarge(response));
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

function tooLarge(response: Response): AppError {
  response.setHeader('Connection', 'close');
  return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than 64 KiB.');
}
