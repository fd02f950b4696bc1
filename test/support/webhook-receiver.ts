import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The sender's port: the same for requests over one kept-alive connection. */
  remotePort?: number;
}

/** A webhook receiver on 127.0.0.1: records what it gets, answers as `respond` decides. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  respond: (request: Received, response: ServerResponse) => void = (_request, response) => response.writeHead(200).end('ok');
  private server?: Server;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = {
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          remotePort: request.socket.remotePort,
        };
        this.received.push(received);
        this.respond(received, response);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Waits until `predicate` holds (polling), or fails after `ms`. */
  async until(predicate: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms (${this.received.length} received)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
