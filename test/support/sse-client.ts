import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './create-test-app';

export interface SseEvent {
  event: string;
  id?: string;
  data: Record<string, unknown>;
}

export interface Stream {
  status: number;
  /** The next event that matches, within `ms`. */
  next(match: (event: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

/** A server-sent events client over plain node:http, as the widget's fetch reads the stream. */
export function openStream(port: number, path: string, headers: Record<string, string>): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { Accept: 'text/event-stream', ...headers } }, (response) => {
      const events: SseEvent[] = [];
      const waiters: (() => void)[] = [];
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          if (fields.event) events.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? '{}') });
          for (const wake of waiters.splice(0)) wake();
        }
      });
      const ended = new Promise<void>((done) => response.on('close', () => done()));
      let body = '';
      if (response.statusCode !== 200) response.on('data', (chunk: string) => (body += chunk));
      resolve({
        status: response.statusCode!,
        ended,
        close: () => request.destroy(),
        next: (match, ms = 5_000) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching event within ${ms} ms; got ${JSON.stringify(events)} ${body}`)), ms);
            const look = () => {
              const index = events.findIndex(match);
              if (index >= 0) {
                clearTimeout(timer);
                found(events.splice(index, 1)[0]);
              } else waiters.push(look);
            };
            look();
          }),
      });
    });
    request.on('error', reject);
  });
}

/** Starts the app listening on a free port of 127.0.0.1 (streams need a real socket): the port. */
export async function listen(t: TestApp): Promise<number> {
  await t.app.listen(0, '127.0.0.1');
  return (t.app.getHttpServer().address() as AddressInfo).port;
}

/**
 * A supertest parser for a stream that never ends by itself: the first event as `{event, id, data}`,
 * then the connection is closed. An error answer (JSON) is parsed as JSON, as usual.
 */
export function firstEvent(answer: unknown, done: (error: Error | null, body: unknown) => void): void {
  // supertest hands its parser the raw node:http answer (its typings say superagent's Response).
  const response = answer as http.IncomingMessage;
  let text = '';
  let finished = false;
  const streamed = String(response.headers['content-type']).startsWith('text/event-stream');
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    text += chunk;
    const end = text.indexOf('\n\n');
    if (!streamed || end < 0 || finished) return;
    finished = true;
    const fields = Object.fromEntries(
      text
        .slice(0, end)
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
    );
    done(null, { event: fields.event, ...(fields.id ? { id: fields.id } : {}), data: JSON.parse(fields.data ?? '{}') });
    response.destroy();
  });
  response.on('end', () => {
    if (finished) return;
    finished = true;
    done(null, text ? JSON.parse(text) : {});
  });
}

/** An event of a stream read whole: its data as JSON.parse gives it (the test knows its shape). */
export interface StreamedEvent {
  event: string;
  data: ReturnType<typeof JSON.parse>;
}

/**
 * A supertest parser for a stream that ends by itself (a streamed reply): every event as
 * `{event, data}` (StreamedEvent), in order, once the answer has ended.
 */
export function allEvents(answer: unknown, done: (error: Error | null, body: unknown) => void): void {
  // supertest hands its parser the raw node:http answer (its typings say superagent's Response).
  const response = answer as http.IncomingMessage;
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (text += chunk));
  response.on('end', () =>
    done(
      null,
      text
        .trim()
        .split('\n\n')
        .map((block) => {
          const [eventLine, dataLine] = block.split('\n');
          return { event: eventLine.replace('event: ', ''), data: JSON.parse(dataLine.replace('data: ', '')) } satisfies StreamedEvent;
        }),
    ),
  );
}
