import type { Response } from 'express';
import type { AppRequest } from '../../common/http/request-context';
import type { LiveStreamOptions } from './live-stream-options';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;

/**
 * One server-sent-events answer that stays bounded whatever its reader does. What counts is what
 * is buffered (the answer's and its socket's unsent bytes), not write()'s boolean alone: an event
 * that would take a stream past the backlog limit cuts it off instead of being queued, so a reader
 * that never reads costs the process at most that much. A stream also ends after its lifetime. Either
 * way the client resumes with Last-Event-ID. A comment line every HEARTBEAT_MS keeps proxies from
 * closing an idle stream.
 */
export class EventStreamResponse {
  private ended = false;

  private constructor(
    private readonly response: Response,
    private readonly options: LiveStreamOptions,
  ) {}

  /** Sends the headers and starts the heartbeat and the lifetime. */
  static start(request: AppRequest, response: Response, options: LiveStreamOptions): EventStreamResponse {
    // A stream lives as long as its reader stays (up to its lifetime): no socket timeout, nothing held back on the way.
    request.socket.setTimeout(0);
    request.socket.setNoDelay(true);
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-store, no-transform');
    response.setHeader('Content-Encoding', 'identity');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    const stream = new EventStreamResponse(response, options);
    const heartbeat = setInterval(() => stream.send(': keep-alive\n\n'), HEARTBEAT_MS);
    const lifetime = setTimeout(() => stream.end(), options.maxLifetimeMs);
    lifetime.unref();
    response.on('close', () => {
      clearInterval(heartbeat);
      clearTimeout(lifetime);
    });
    return stream;
  }

  /** Whether events may still be sent. */
  get open(): boolean {
    return !this.ended && !this.response.destroyed;
  }

  /** Runs `listener` once the connection has closed, whoever closed it. */
  onClose(listener: () => void): void {
    this.response.on('close', listener);
  }

  /** Whether `bytes` more would stay within the backlog limit (events held back for later count too). */
  fits(bytes: number): boolean {
    return this.response.writableLength + bytes <= this.options.maxBacklogBytes;
  }

  /** Sends `text`, or cuts the stream off if that would take its unsent data past the backlog limit. */
  send(text: string): void {
    if (!this.open) return;
    if (!this.fits(Buffer.byteLength(text))) return this.cutOff();
    this.response.write(text);
  }

  /** Resolves once the socket has taken what is queued (or the stream has closed): a replay goes at the reader's pace. */
  drained(): Promise<void> {
    if (!this.open || this.response.writableLength < this.response.writableHighWaterMark) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.response.off('close', done);
        resolve();
      };
      this.response.on('drain', done);
      this.response.on('close', done);
    });
  }

  /**
   * Ends the stream (its lifetime is over, the instance shuts down, the replay failed). A reader that
   * has not taken the rest within the grace period is cut off: ending adds no more heartbeats, so
   * nothing else would ever close a stuck reader's connection.
   */
  end(): void {
    if (!this.open) return;
    this.ended = true;
    this.response.end();
    const cut = setTimeout(() => this.response.destroy(), this.options.endGraceMs);
    cut.unref();
    this.response.on('close', () => clearTimeout(cut));
  }

  /** Drops what the reader has not taken and closes the connection: the reader is too far behind. */
  cutOff(): void {
    this.ended = true;
    this.response.destroy();
  }
}
