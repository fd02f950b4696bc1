import http from 'node:http';
import https from 'node:https';
import type { EmbeddingsConfig } from '../../config/env';

/** Answers larger than this are refused: 64 passages of 3,072 numbers as JSON stay well below it. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * An OpenAI-compatible embeddings endpoint: `POST <base>/embeddings` with `{model, input}`,
 * answered by `{data: [{embedding, index}]}`. Node's http(s) with keep-alive agents, so an answer's
 * question reuses a warm connection. The URL is the operator's (EMBEDDINGS_BASE_URL), as the
 * LLM's is, not a tenant's: a private or loopback address is allowed and no address filter applies.
 */
export class EmbeddingsClient {
  private readonly url: URL;
  private readonly agent: http.Agent;

  constructor(private readonly config: Pick<EmbeddingsConfig, 'baseUrl' | 'model' | 'apiKey'>) {
    this.url = new URL(`${config.baseUrl}/embeddings`);
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 16 }) : new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /**
   * One vector per input, in the inputs' order. Rejects on a non-2xx answer, a malformed body, a
   * count or length that does not fit, or the timeout (connection to the end of the answer), or
   * when `signal` aborts. The error's message never holds the key.
   */
  embed(inputs: string[], timeoutMs: number, signal?: AbortSignal): Promise<number[][]> {
    const body = JSON.stringify({ model: this.config.model, input: inputs });
    const send = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise<number[][]>((resolve, reject) => {
      const request = send(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          Accept: 'application/json',
          Authorization: `Bearer ${this.config.apiKey}`,
        },
        signal,
      });
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(new Error(`embeddings request failed: ${error.message}`));
      };
      request.on('error', fail);
      request.on('response', (response) => {
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (part: Buffer) => {
          size += part.length;
          if (size > MAX_RESPONSE_BYTES) request.destroy(new Error('the answer is too large'));
          else parts.push(part);
        });
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) return reject(new Error(`embeddings request failed: the endpoint answered ${status}`));
          try {
            resolve(vectorsOf(JSON.parse(Buffer.concat(parts).toString('utf8')), inputs.length));
          } catch (error) {
            fail(error as Error);
          }
        });
      });
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The answer's vectors in input order, checked: one per input, all of one length, finite numbers. */
export function vectorsOf(body: unknown, count: number): number[][] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== count) throw new Error(`expected ${count} embeddings`);
  const vectors: number[][] = new Array<number[]>(count);
  for (const [position, item] of (data as { embedding?: unknown; index?: unknown }[]).entries()) {
    const index = typeof item?.index === 'number' ? item.index : position;
    const embedding = item?.embedding;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index]) throw new Error('the embeddings have wrong indexes');
    if (!Array.isArray(embedding) || !embedding.length || !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw new Error('an embedding is not a list of numbers');
    }
    vectors[index] = embedding as number[];
  }
  if (vectors.some((vector) => vector.length !== vectors[0].length)) throw new Error('the embeddings differ in length');
  return vectors;
}

/** The vector scaled to length 1 (a dot product of two is then their cosine); undefined for a zero vector. */
export function normalized(vector: ArrayLike<number>): Float32Array | undefined {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (!(sum > 0)) return undefined;
  const scale = 1 / Math.sqrt(sum);
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i] * scale;
  return unit;
}
