import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChildServer, freePort, request, requireBuild, sleep } from '../support/child-server';

/** True while a process with this id exists (signal 0 only checks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds or `ms` pass; returns whether it held. */
async function eventually(condition: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(100);
  }
  return condition();
}

/**
 * A supervisor (systemd with KillMode=process, a process manager, a shell's `kill`) stops
 * `npm start` by sending SIGTERM to npm's process. npm passes the signal on to the script's
 * shell, so the script must exec the server: a shell that runs node as its child dies and leaves
 * the server running, orphaned, on its port.
 */
describe('npm start and SIGTERM', () => {
  let dataDir: string;
  let server: ChildServer | undefined;
  let serverPid: number | undefined;

  beforeAll(async () => {
    requireBuild();
    dataDir = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
  });
  afterAll(async () => {
    // An orphaned server (the failure this suite catches) must not outlive the run.
    if (serverPid !== undefined && isRunning(serverPid)) process.kill(serverPid, 'SIGKILL');
    await server?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops the server gracefully: the server process is gone and its port closed', async () => {
    // `--ignore-scripts` skips only the prestart build (dist/ is built before the e2e run, as for
    // every child-server suite); the start script itself runs as `npm start` runs it, through sh.
    server = new ChildServer({ PORT: String(await freePort()), DATA_DIR: dataDir, DEMO_DATA: 'false', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' }, [
      'npm',
      'start',
      '--ignore-scripts',
    ]);
    await server.waitFor('/health/live');
    // The server's own pid, from its JSON log lines (npm's child may be a shell or the server itself).
    const listening = server.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { pid: number; msg: string })
      .find((line) => line.msg.startsWith('Listening on'));
    serverPid = listening?.pid;
    expect(serverPid).toEqual(expect.any(Number));
    expect(serverPid).not.toBe(server.process.pid);

    server.process.kill('SIGTERM');
    const port = server.port;
    const portClosed = async () => (await request({ port, path: '/health/live', timeoutMs: 2_000 }).catch(() => undefined)) === undefined;
    expect(await eventually(() => !isRunning(serverPid!), 15_000)).toBe(true);
    expect(await portClosed()).toBe(true);
    expect(server.stdout).toContain('"msg":"Shut down cleanly"');
    await server.waitForExit(15_000);
  }, 90_000);
});
