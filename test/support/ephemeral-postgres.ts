import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, sleep } from './child-server';

/**
 * A PostgreSQL server of the test's own: a fresh cluster in a temp folder, on a spare port, so a
 * fault test can stop it, crash it and start it again without touching the machine's shared
 * database. Needs the server binaries (initdb, postgres); `findPostgresBinaries` says where they are.
 */

const ADMIN_DATABASE = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const LOG_LIMIT = 64 * 1024;

/** How `stop` ends the server: PostgreSQL's fast or immediate shutdown, or a crash (SIGKILL). */
export type StopMode = 'fast' | 'immediate' | 'kill';
const SIGNAL_OF: Record<Exclude<StopMode, 'kill'>, NodeJS.Signals> = { fast: 'SIGINT', immediate: 'SIGQUIT' };

/**
 * The folder holding initdb and postgres: POSTGRES_BIN_DIR, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian and Ubuntu), else `pg_config --bindir`, else the PATH.
 */
export function findPostgresBinaries(): string | undefined {
  const usable = (dir: string | undefined) => !!dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'));
  if (usable(process.env.POSTGRES_BIN_DIR)) return process.env.POSTGRES_BIN_DIR;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) if (usable(path.join(debian, version, 'bin'))) return path.join(debian, version, 'bin');
  }
  const bindir = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (bindir.status === 0 && usable(bindir.stdout.trim())) return bindir.stdout.trim();
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && usable(path.dirname(which.stdout.trim()))) return path.dirname(which.stdout.trim());
  return undefined;
}

/**
 * PostgreSQL refuses to run as root. As root the cluster belongs to the `postgres` system user
 * (or `nobody`) and the binaries run under that user (spawn's uid/gid, so the child's pid is
 * the postmaster's and it can be signalled directly); as anyone else, as that user.
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('Running as root and neither a postgres nor a nobody user exists: PostgreSQL cannot run as root');
}

/** Direct children of a process, from /proc (the postmaster's backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
  if (!existsSync('/proc')) return [];
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

export class EphemeralPostgres {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private logText = '';
  /** Every start's pid, for the last-resort cleanup on process exit. */
  private static readonly running = new Set<EphemeralPostgres>();

  private constructor(
    readonly binDir: string,
    /** The temp folder holding the cluster (`data`) and the Unix socket (`socket`). */
    readonly root: string,
    readonly port: number,
    readonly database: string,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  /** initdb in a temp folder, start on a spare port, create `database`. */
  static async create(options: { database?: string; binDir?: string } = {}): Promise<EphemeralPostgres> {
    const binDir = options.binDir ?? findPostgresBinaries();
    if (!binDir) throw new Error('PostgreSQL server binaries (initdb, postgres) not found; set POSTGRES_BIN_DIR');
    const user = serverUser();
    const root = await mkdtemp(path.join(tmpdir(), 'ephemeral-pg-'));
    await mkdir(path.join(root, 'socket'));
    if (user) for (const dir of [root, path.join(root, 'socket')]) await chown(dir, user.uid, user.gid);

    const server = new EphemeralPostgres(binDir, root, await freePort(), options.database ?? 'app', user);
    const init = spawnSync(
      path.join(binDir, 'initdb'),
      ['-D', server.dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
      { cwd: root, encoding: 'utf8', env: server.env(), ...(user ?? {}) },
    );
    if (init.status !== 0) {
      await rm(root, { recursive: true, force: true });
      throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.error?.message}`);
    }
    await server.start();
    await server.withClient(ADMIN_DATABASE, (client) => client.query(`CREATE DATABASE "${server.database}"`));
    return server;
  }

  get dataDir(): string {
    return path.join(this.root, 'data');
  }

  /** The connection string of the test's database (TCP on 127.0.0.1, trust authentication). */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${this.database}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** The server's own log (stderr), the last 64 KiB, for failure messages. */
  get log(): string {
    return this.logText;
  }

  /**
   * Starts the server on the same port and data folder (after a crash it runs recovery first) and
   * waits until it accepts queries.
   */
  async start(): Promise<void> {
    if (this.running) throw new Error('PostgreSQL is already running');
    const child = spawn(
      path.join(this.binDir, 'postgres'),
      [
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-k',
        path.join(this.root, 'socket'),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=60',
        '-c',
        'shared_buffers=16MB',
        // A process crash keeps whatever was written to the kernel; only a machine crash needs
        // fsync, and these tests never crash the machine. Commits are still written before the ack.
        '-c',
        'fsync=off',
      ],
      { cwd: this.root, env: this.env(), stdio: ['ignore', 'ignore', 'pipe'], ...(this.user ?? {}) },
    );
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.logText = (this.logText + chunk).slice(-LOG_LIMIT);
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    EphemeralPostgres.running.add(this);
    await this.waitUntilReady();
  }

  /**
   * Stops the server and waits for every one of its processes to end. `fast` and `immediate`
   * are PostgreSQL's shutdown modes (immediate skips the checkpoint, like a crash, and tells
   * clients 57P01); `kill` is a crash: SIGKILL to the postmaster and all its processes at once,
   * so clients see their connections reset with no goodbye.
   */
  async stop(mode: StopMode = 'fast'): Promise<void> {
    const pid = this.pid;
    if (!pid) return;
    if (mode === 'kill') {
      const processes = [pid, ...childrenOf(pid)];
      for (const each of processes) signal(each, 'SIGKILL');
      await this.exited;
      // The killed backends are reaped by init; wait until none is left holding shared memory.
      for (let i = 0; i < 100 && processes.slice(1).some(isAlive); i++) await sleep(20);
    } else {
      process.kill(pid, SIGNAL_OF[mode]);
      await this.exited;
    }
    EphemeralPostgres.running.delete(this);
  }

  /**
   * Freezes every process of the server (SIGSTOP): connections stay open and new ones are
   * accepted by the kernel, but nothing answers, as with a hung server or a network partition.
   */
  freeze(): void {
    const pid = this.pid;
    if (!pid) throw new Error('PostgreSQL is not running');
    for (const each of [pid, ...childrenOf(pid)]) signal(each, 'SIGSTOP');
  }

  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void {
    const pid = this.pid;
    if (!pid) return;
    for (const each of [pid, ...childrenOf(pid)]) signal(each, 'SIGCONT');
  }

  /** Stops the server (immediate) and removes its folder. */
  async destroy(): Promise<void> {
    this.thaw();
    await this.stop('immediate').catch(() => this.child?.kill('SIGKILL'));
    await rm(this.root, { recursive: true, force: true });
  }

  /** Runs `work` with a client of its own (not the app's pool) on `database`. */
  async withClient<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', ...(this.user ? { HOME: this.root } : { HOME: process.env.HOME }) };
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (!this.running) throw new Error(`postgres exited at start:\n${this.logText}`);
      try {
        await this.withClient(ADMIN_DATABASE, (client) => client.query('SELECT 1'));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`postgres did not accept connections within ${READY_TIMEOUT_MS} ms (${String(error)}):\n${this.logText}`, { cause: error });
        await sleep(50);
      }
    }
  }

  static {
    // A test that fails before its afterAll must not leave a server behind.
    process.once('exit', () => {
      for (const server of EphemeralPostgres.running) {
        const pid = server.pid;
        if (pid) for (const each of [pid, ...childrenOf(pid)]) signal(each, 'SIGKILL');
      }
    });
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Running and not a zombie (a container's init may never reap the killed backends). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
