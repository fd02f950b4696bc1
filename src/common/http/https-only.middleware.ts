import { isIPv4 } from 'node:net';
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';

type TrustFunction = (address: string, hop: number) => boolean;

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || (isIPv4(v4) && v4.startsWith('127.'));
}

/**
 * The transport rule (API_DECISIONS, Transport): HTTPS only, seen on the TLS socket or in a
 * trusted proxy's X-Forwarded-Proto. Outside production, plain HTTP from loopback is allowed
 * so that `curl http://localhost` works; a trusted proxy saying "http" is refused in every mode.
 */
@Injectable()
export class HttpsOnlyMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(request: Request, _response: Response, next: NextFunction): void {
    if (request.secure) return next();
    const trust = request.app.get('trust proxy fn') as TrustFunction;
    const proxiedAsHttp = request.header('x-forwarded-proto') !== undefined && trust(request.socket.remoteAddress ?? '', 0);
    if (!proxiedAsHttp && !this.config.production && isLoopback(request.socket.remoteAddress)) return next();
    next(new AppError(ErrorCode.HTTPS_REQUIRED, 'HTTPS is required. Send the request over https://.'));
  }
}
