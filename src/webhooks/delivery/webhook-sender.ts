import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** What one attempt got: the answer's status and first 16 KB, or why there was none. */
export interface AttemptResult {
  status?: number;
  body?: string;
  /** Seconds, from a Retry-After header (429, 503). */
  retryAfterSeconds?: number;
  error?: string;
  durationMs: number;
}

export const MAX_RECORDED_BODY = 16 * 1024;
/** Bytes of an answer read at most; then the connection is closed (a receiver may send gigabytes). */
export const MAX_READ_BODY = 64 * 1024;

const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';
/**
 * Below the idle timeout of nearly every server (Node's 5 s, nginx's 75 s, load balancers' 60 s):
 * a socket we closed first is never one the receiver reset under a new attempt. Under load the
 * attempts to an endpoint are milliseconds apart, so a short idle time loses little reuse.
 */
const IDLE_SOCKET_MS = 1_000;

function retryAfterOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The reason recorded as the delivery's lastError and logged: one line, never a stack. */
function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.message === 'timeout') return `timeout after ${timeoutMs / 1000} s`;
  if (error.code === ADDRESS_NOT_ALLOWED) return 'address not allowed (private, loopback, link-local or reserved, outside WEBHOOK_ALLOWED_CIDRS)';
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'host not found';
  if (error.code === 'ECONNRESET') return 'connection reset';
  const message = error.message.replace(/\s+/g, ' ').slice(0, 200);
  return error.code ? `${error.code}: ${message}` : message;
}

function addressNotAllowed(): Error {
  return Object.assign(new Error('address not allowed'), { code: ADDRESS_NOT_ALLOWED });
}

/**
 * dns.lookup that fails when any address the name resolves to may not be reached, so a name that
 * resolves inside cannot reach it (DNS rebinding included): the connection uses what this returns.
 */
function guardedLookup(deliverable: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '');
      if (!addresses.length || addresses.some(({ address }) => !deliverable(address))) return callback(addressNotAllowed(), '');
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * POSTs with node:http(s), connecting only to addresses `deliverable` accepts: a literal address in
 * the URL is checked before connecting, a name's addresses when DNS returns them (guardedLookup).
 * Redirects are not followed; the whole attempt is bounded by `timeoutMs`, and at most
 * MAX_READ_BODY bytes of the answer are read.
 */
export class WebhookSender {
  /**
   * Kept-alive connections, pooled per host and port: a new TCP (and TLS) connection per attempt
   * was the largest cost of a delivery after the database's. A pooled socket was connected to an
   * address that the check above (a literal address, before every request) or guardedLookup (a
   * name, at connect time) accepted, and the accepted addresses do not change while the process
   * runs, so reusing it reaches nothing a new connection could not. An idle socket is closed
   * after IDLE_SOCKET_MS (or 1 s before the receiver's own Keep-Alive timeout, which Node's agent
   * reads), before a receiver closes it, so that an attempt does not meet a reset socket.
   */
  private readonly agents = {
    http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  private readonly lookup: LookupFunction;

  constructor(
    private readonly deliverable: (address: string) => boolean,
    private readonly timeoutMs: number,
  ) {
    this.lookup = guardedLookup(deliverable);
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = Date.now();
    const target = URL.canParse(url) ? new URL(url) : undefined;
    if (!target) return { error: 'invalid URL', durationMs: 0 };
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.deliverable(host)) return { error: describe(addressNotAllowed(), this.timeoutMs), durationMs: 0 };
    const https = target.protocol === 'https:';
    // What node:http refuses at once (a header it cannot send) is this attempt's error too.
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: Date.now() - started });
      };
      const outgoing = (https ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          agent: https ? this.agents.https : this.agents.http,
          lookup: this.lookup,
          headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'chatbot-platform-webhooks/1' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let read = 0;
          const done = () =>
            finish({
              status: response.statusCode,
              // PostgreSQL text holds no NUL: one in an answer would fail the record of every attempt written with it.
              body: Buffer.concat(chunks).toString('utf8').replaceAll('\0', ''),
              retryAfterSeconds: retryAfterOf(response.headers['retry-after']),
            });
          response.on('data', (chunk: Buffer) => {
            if (read < MAX_RECORDED_BODY) chunks.push(chunk.subarray(0, MAX_RECORDED_BODY - read));
            read += chunk.length;
            if (read < MAX_READ_BODY) return;
            done();
            response.destroy();
          });
          response.on('end', done);
          response.on('error', done);
        },
      );
      const timer = setTimeout(() => outgoing.destroy(new Error('timeout')), this.timeoutMs);
      outgoing.on('error', (error: Error & { code?: string }) => finish({ error: describe(error, this.timeoutMs) }));
      outgoing.end(body);
    }).catch((error: Error & { code?: string }) => ({ error: describe(error, this.timeoutMs), durationMs: Date.now() - started }));
  }
}
