import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CATALOGUE, ErrorCode } from '../errors/error-codes';
import type { ErrorEnvelope } from '../errors/error-envelope';

/** Node's own refusals, before any request object exists, by the parser's error code. */
function refusalOf(error: NodeJS.ErrnoException): { code: ErrorCode; message: string; field?: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { code: ErrorCode.HEADERS_TOO_LARGE, message: 'The request headers are larger than 16 KiB.' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { code: ErrorCode.REQUEST_TIMEOUT, message: 'The request did not arrive in time.' };
  return { code: ErrorCode.VALIDATION_ERROR, message: 'The request is not valid HTTP.', field: 'request' };
}

/**
 * Answers what Node's HTTP parser refuses (headers over 16 KiB, malformed request lines and
 * headers, a request that did not arrive in time) in the error envelope, with a request id and
 * the security headers every other answer has, then closes the connection. Without this, Node
 * writes a bare `400 Bad Request` with no body.
 */
export function answerClientErrorsInEnvelope(server: Server, securityHeaders: Readonly<Record<string, string>>): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a connection the client reset or that is already answering.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const { code, message, field } = refusalOf(error);
    const status = ERROR_CATALOGUE[code].status;
    const requestId = randomUUID();
    const envelope: ErrorEnvelope = {
      error: { code, message, status, requestId, ...(field ? { details: [{ field, message: 'is not a valid HTTP request' }] } : {}) },
    };
    const body = JSON.stringify(envelope);
    const headers: Record<string, string | number> = {
      ...securityHeaders,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      'X-Request-Id': requestId,
      Connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
  });
}
