import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Agent } from 'node:http';

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

function retryAfterOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.message === 'timeout') return `timeout after ${timeoutMs / 1000} s`;
  if (/is not allowed/.test(error.message)) return 'address not allowed (private, loopback, link-local or reserved, outside WEBHOOK_ALLOWED_CIDRS)';
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'host not found';
  if (error.code === 'ECONNRESET') return 'connection reset';
  return error.code ? `${error.code}: ${error.message.slice(0, 200)}` : error.message.slice(0, 200);
}

/**
 * POSTs with node:http(s) through request-filtering-agent, which checks the address DNS returned
 * when connecting (so a name that resolves inside cannot reach it, DNS rebinding included).
 * Redirects are not followed; the whole attempt is bounded by `timeoutMs`.
 */
export class WebhookSender {
  private agents?: Promise<{ http: Agent; https: Agent }>;

  constructor(
    private readonly allowedCidrs: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  /** request-filtering-agent is an ES module: loaded with import(), once, on the first attempt. */
  private loadAgents(): Promise<{ http: Agent; https: Agent }> {
    return (this.agents ??= import('request-filtering-agent').then(({ RequestFilteringHttpAgent, RequestFilteringHttpsAgent }) => {
      const options = { allowIPAddressList: [...this.allowedCidrs], keepAlive: false };
      return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
    }));
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const agents = await this.loadAgents();
    const started = Date.now();
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: Date.now() - started });
      };
      const outgoing = request(
        target,
        {
          method: 'POST',
          agent: target.protocol === 'https:' ? agents.https : agents.http,
          headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'chatbot-platform-webhooks/1' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < MAX_RECORDED_BODY) chunks.push(chunk.subarray(0, MAX_RECORDED_BODY - kept));
            kept += chunk.length;
          });
          const done = () =>
            finish({
              status: response.statusCode,
              body: Buffer.concat(chunks).toString('utf8'),
              retryAfterSeconds: retryAfterOf(response.headers['retry-after']),
            });
          response.on('end', done);
          response.on('error', done);
        },
      );
      const timer = setTimeout(() => outgoing.destroy(new Error('timeout')), this.timeoutMs);
      outgoing.on('error', (error: Error & { code?: string }) => finish({ error: describe(error, this.timeoutMs) }));
      outgoing.end(body);
    });
  }
}
