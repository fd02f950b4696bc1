import type { Response } from 'express';
import type { GlobalExceptionFilter } from '../../common/errors/global-exception.filter';
import type { AppRequest } from '../../common/http/request-context';
import { toWidgetExchange } from './turn.mapper';
import type { Exchange } from './turn';

/** One server-sent event. */
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Answers a visitor's message on any channel: 201 with the exchange as JSON, or, when the client
 * asks for `text/event-stream`, the reply as it is written: `delta` events (`{text}`), then one
 * `done` event with the JSON answer. The stream starts with the first piece of the reply, so every
 * check before it still answers with a status and the error envelope; a failure after it is an
 * `error` event with that envelope.
 */
export async function sendExchange(
  request: AppRequest,
  response: Response,
  errors: GlobalExceptionFilter,
  exchange: (onDelta?: (text: string) => void) => Promise<Exchange>,
): Promise<void> {
  if (!/\btext\/event-stream\b/.test(request.headers.accept ?? '')) {
    response.status(201).json(toWidgetExchange(await exchange()));
    return;
  }
  const start = () => {
    if (response.headersSent) return;
    response.status(201).setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
  };
  try {
    const answered = await exchange((text) => {
      start();
      response.write(sse('delta', { text }));
    });
    start();
    response.end(sse('done', toWidgetExchange(answered)));
  } catch (error) {
    if (!response.headersSent) throw error;
    response.end(sse('error', errors.answerTo(error, request).body));
  }
}
