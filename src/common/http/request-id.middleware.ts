import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AppRequest } from './request-context';
import { requestIdOf } from './request-id';

/** Every response, errors and unknown routes included, carries X-Request-Id. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(request: AppRequest, response: Response, next: NextFunction): void {
    requestIdOf(request, response);
    next();
  }
}
