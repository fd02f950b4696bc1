import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';

/** The repository root: the built server is `<root>/dist/main.js`. */
export const ROOT = path.resolve(__dirname, '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'main.js');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Fails the suite with a clear message when `npm run build` has not been run. */
export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` before these tests`);
}

/** A port that was free a moment ago (the kernel's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Date.now() when the process exited. */
  at: number;
}

/**
 * `node dist/main.js` (or another command that starts it) as a child process with exactly the given environment (plus PATH and HOME;
 * nothing is inherited from the test run, so the run's DATABASE_URL or NODE_ENV cannot leak in).
 * stdout and stderr are pipes, so stdout is not a TTY and logs are JSON lines.
 */
export class ChildServer {
  readonly process: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  /** `command`: what starts the server, `node dist/main.js` unless given (e.g. `npm start`). */
  constructor(
    readonly env: Record<string, string>,
    command: readonly string[] = [process.execPath, MAIN],
  ) {
    this.process = spawn(command[0], command.slice(1), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.process.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        resolve(this.exit);
      });
    });
  }

  get port(): number {
    return Number(this.env.PORT);
  }

  /** Waits for the exit, or kills the process and fails after `ms`. */
  async waitForExit(ms: number): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (!result) {
      this.process.kill('SIGKILL');
      throw new Error(`the server did not exit within ${ms} ms\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
    }
    return result;
  }

  /** Polls `path` until it answers `status`; fails early if the process exits. */
  async waitFor(pathname: string, status = 200, ms = 60_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (this.exit)
        throw new Error(
          `the server exited (${JSON.stringify(this.exit)}) before ${pathname} answered ${status}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      const answer = await request({ port: this.port, path: pathname }).catch(() => undefined);
      if (answer?.status === status) return;
      await sleep(100);
    }
    throw new Error(`${pathname} did not answer ${status} within ${ms} ms\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
  }

  /** Ends the process if it is still running (cleanup after a failed test). */
  async kill(): Promise<void> {
    if (this.exit) return;
    this.process.kill('SIGKILL');
    await this.exited;
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The raw body text. */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: any;
  /** The body arrived whole: the parser saw its end and its length matches Content-Length. */
  complete: boolean;
}

export interface RequestOptions {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  agent?: http.Agent | false;
  /** Sends the body in this many chunks, `chunkDelayMs` apart (a slow client). */
  chunks?: number;
  chunkDelayMs?: number;
  timeoutMs?: number;
}

/** One HTTP request on 127.0.0.1 with node:http, which reports resets and truncation exactly. */
export function request(options: RequestOptions): Promise<Answer> {
  const payload = options.body === undefined ? undefined : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (payload) {
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers,
        agent: options.agent ?? false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('aborted', () => reject(new Error('response aborted')));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(parts);
          const text = raw.toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const length = res.headers['content-length'];
          const complete = res.complete && (length === undefined || Number(length) === raw.length);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, complete });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('client timeout')));
    if (!payload) return void req.end();
    const chunks = Math.max(1, options.chunks ?? 1);
    if (chunks === 1) return void req.end(payload);
    void (async () => {
      const size = Math.ceil(payload.length / chunks);
      for (let i = 0; i < chunks; i++) {
        if (req.destroyed) return;
        req.write(payload.subarray(i * size, (i + 1) * size));
        if (i < chunks - 1) await sleep(options.chunkDelayMs ?? 200);
      }
      req.end();
    })();
  });
}
