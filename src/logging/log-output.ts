import pino, { type DestinationStream } from 'pino';
import PinoPretty from 'pino-pretty';

/** Where log lines go, and a way to print text to the terminal in order with them. */
export interface LogOutput {
  stream: DestinationStream;
  /** Writes text (the demo banner) after every log line written so far. */
  writeText(text: string): void;
}

export const LOG_OUTPUT = Symbol('LOG_OUTPUT');

/**
 * One output for every pino logger of the app, so that their lines and the banner keep their
 * order: JSON to stdout through one asynchronous buffer (the banner joins the same buffer), or,
 * on a developer's terminal, pretty lines written synchronously.
 */
export function createLogOutput(pretty: boolean): LogOutput {
  if (pretty) {
    const stream = PinoPretty({ singleLine: true, translateTime: 'SYS:HH:MM:ss.l', sync: true });
    return { stream, writeText: (text) => process.stdout.write(text) };
  }
  const stream = pino.destination({ dest: 1, sync: false });
  return { stream, writeText: (text) => stream.write(text) };
}
