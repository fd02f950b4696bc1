import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake does with a request: answer, answer 500, or never answer. */
export type FakeBehaviour = 'ok' | 'fail' | 'hang';

export interface EmbeddingsRequest {
  model: string;
  input: string[];
  authorization: string | undefined;
}

/** Words that carry no meaning here: left out of every vector, as a real model all but ignores them. */
const STOP_WORDS = new Set(
  'a an and are at be by can do does for from how i in is it its my of on or our the to we what when where which who will with you your'.split(' '),
);

/**
 * An OpenAI-compatible embeddings endpoint on 127.0.0.1 (`POST /v1/embeddings`) whose vectors
 * are deterministic and understandable: a hashed bag of concepts. Each word is replaced by its
 * concept when `concepts` names one (so "expensive" and "billed" can be made to mean the same),
 * then counted in the dimension its hash picks. Two texts are near when they share concepts, even
 * with no word in common, which is what a real model does for a paraphrase.
 * Passages reach it as "title\n\ncontent", questions as they are typed: `passages` and
 * `questions` set the behaviour for each.
 */
export class FakeEmbeddingsServer {
  readonly requests: EmbeddingsRequest[] = [];
  passages: FakeBehaviour = 'ok';
  questions: FakeBehaviour = 'ok';
  private readonly concepts = new Map<string, string>();
  private server?: Server;
  private port = 0;

  constructor(
    concepts: Record<string, string[]>,
    private readonly dimensions = 256,
  ) {
    for (const [concept, words] of Object.entries(concepts)) for (const word of words) this.concepts.set(word, concept);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The vector the fake gives a text (for assertions). */
  embed(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
      if (STOP_WORDS.has(word)) continue;
      vector[fnv1a(this.concepts.get(word) ?? word) % this.dimensions] += 1;
    }
    return vector;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model: string; input: string[] };
        this.requests.push({ model: body.model, input: body.input, authorization: request.headers.authorization });
        const behaviour = body.input.some((text) => text.includes('\n\n')) ? this.passages : this.questions;
        if (request.url !== '/v1/embeddings' || request.method !== 'POST') return response.writeHead(404).end();
        if (behaviour === 'hang') return;
        if (behaviour === 'fail') return response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
        // Listed in reverse: the client must put them back in order by `index`.
        const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: this.embed(text) })).reverse();
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** FNV-1a, 32 bits: a stable hash, the same on every run. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
