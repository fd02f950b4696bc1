import { randomUUID } from 'node:crypto';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AppRequest } from './request-context';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id or generates one, on every response. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(request: AppRequest, response: Response, next: NextFunction): void {
    const incoming = request.header('x-request-id');
    request.id = incoming && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    response.setHeader('X-Request-Id', request.id);
    next();
  }
}
