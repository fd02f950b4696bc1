import type { Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { sleep } from './child-server';
import type { TestApp } from './create-test-app';

/** A raw TCP connection: exact control over what is sent, and when. */
export class RawConnection {
  received = '';
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (this.received += chunk));
    socket.on('close', () => (this.closed = true));
    // The server may close while we write (413 with Connection: close): EPIPE / ECONNRESET.
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** This end's port: the server sees the connection coming from it. */
  get localPort(): number {
    return this.socket.localPort!;
  }

  /** Stops reading: what the server sends piles up in the kernel's buffers, then in the server's (a reader that never reads). */
  pause(): void {
    this.socket.pause();
  }

  /** Reads again, from where it stopped. */
  resume(): void {
    this.socket.resume();
  }

  write(data: string | Buffer): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(data);
  }

  /**
   * Sends a chunked body 16 KiB at a time, a little apart, until `maxBytes`, an answer or the
   * connection's close: a client that keeps writing into a connection the server closed is reset,
   * and may lose the answer it had not read. Returns the body bytes sent.
   */
  async sendChunkedUntilAnswered(maxBytes: number): Promise<number> {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    let sent = 0;
    while (sent < maxBytes && !this.closed && !this.received.includes('\r\n\r\n{')) {
      await this.writeAndDrain(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      sent += chunk.length;
      await sleep(2);
    }
    return sent;
  }

  writeAndDrain(data: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.socket.destroyed || this.socket.write(data)) return resolve();
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  async waitFor(pattern: RegExp, ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    while (!pattern.test(this.received)) {
      if (Date.now() > deadline) throw new Error(`no match for ${pattern} within ${ms} ms; received: ${JSON.stringify(this.received.slice(0, 500))}`);
      await sleep(10);
    }
    return this.received;
  }

  async waitForClose(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error(`the server did not close the connection within ${ms} ms`);
      await sleep(10);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** One HTTP/1.1 answer from raw text (Content-Length bodies only). */
export function parseRaw(text: string): { status: number; headers: Record<string, string>; json: any } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, json: JSON.parse(rest.join('\r\n\r\n')) };
}

/** Listens on a spare loopback port (supertest's per-request listener cannot carry concurrent load). */
export async function listen(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}
