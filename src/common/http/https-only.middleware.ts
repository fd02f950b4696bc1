import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/env';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import { isLoopbackAddress } from './loopback';

type TrustFunction = (address: string, hop: number) => boolean;

/** Writes the error envelope of a refusal (the exception filter's answer, outside Nest's routing). */
export type Refuse = (error: AppError, request: Request, response: Response) => void;

/** Probes answer over plain HTTP: a load balancer checks them on the instance's own port. */
const isHealthProbe = (request: Request) => (request.method === 'GET' || request.method === 'HEAD') && /^\/health\//i.test(request.path);

/**
 * The transport rule (API_DECISIONS, Transport): HTTPS only, seen on the TLS socket or in a
 * trusted proxy's X-Forwarded-Proto. Outside production, plain HTTP from loopback is allowed
 * so that `curl http://localhost` works; a trusted proxy saying "http" is refused in every mode.
 * A plain Express middleware before routing, so that unknown paths are refused too (as a Nest
 * middleware on every path it cost a route match and an exclusion check per request).
 */
export function httpsOnlyMiddleware(config: Pick<AppConfig, 'production'>, refuse: Refuse) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (request.secure || isHealthProbe(request)) return next();
    const trust = request.app.get('trust proxy fn') as TrustFunction;
    const proxiedAsHttp = request.header('x-forwarded-proto') !== undefined && trust(request.socket.remoteAddress ?? '', 0);
    if (!proxiedAsHttp && !config.production && isLoopbackAddress(request.socket.remoteAddress)) return next();
    refuse(new AppError(ErrorCode.HTTPS_REQUIRED, 'HTTPS is required. Send the request over https://.'), request, response);
  };
}

/**
 * The start-up line that says how requests must arrive (the transport rule is easy to miss: a
 * production start without TLS or a trusted proxy listens, then refuses every request): a warning
 * when nothing but the health probes can be served, else one informational line.
 */
export function transportNotice(config: Pick<AppConfig, 'production' | 'tls' | 'trustProxy'>): { level: 'warn' | 'log'; message: string } {
  if (config.tls) {
    return { level: 'log', message: 'HTTPS is served directly (TLS_CERT_FILE, TLS_KEY_FILE).' };
  }
  const proxy = config.trustProxy !== undefined && config.trustProxy !== false ? config.trustProxy : undefined;
  if (!config.production) return { level: 'log', message: 'Development mode: plain HTTP is accepted from loopback addresses only.' };
  if (proxy === undefined) {
    return {
      level: 'warn',
      message:
        'Production mode without TLS or a trusted proxy: every request but /health/* is refused with 403 HTTPS_REQUIRED. ' +
        'Set TRUST_PROXY to the addresses of the proxy that terminates TLS (it must send X-Forwarded-Proto: https), or TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS here.',
    };
  }
  return {
    level: 'log',
    message: `Production mode: plain HTTP is refused (403 HTTPS_REQUIRED) unless it comes from a trusted proxy (TRUST_PROXY=${String(proxy)}) that sends X-Forwarded-Proto: https.`,
  };
}
