// Answer quality over real help-centre text (issue 28): the corpus of ../shared/knowledge-eval
// (4 bots, 37 documents) is loaded through the admin API into a fresh database, then every
// question of bench/answer-questions.json is asked through the widget as a visitor would, and
// hit@1, hit@any, correct refusals, false fallbacks and the median latency are reported per kind.
// Builds nothing: run `npm run build` first (`npm run eval:answers` does).
//   node bench/answer-eval.mjs [--postgres=postgresql://...] [--json=out.json] [--verbose]
// Embedded database (PGlite) by default; with --postgres a fresh database is created on that
// server and dropped afterwards. LLM_* and EMBEDDINGS_* in the environment reach the service.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [k, ...v] = arg.replace(/^--/, '').split('=');
    return [k, v.length ? v.join('=') : true];
  }),
);
const corpus = JSON.parse(readFileSync(path.join(root, '../shared/knowledge-eval/documents.json'), 'utf8'));
const { questions } = JSON.parse(readFileSync(path.join(root, 'bench/answer-questions.json'), 'utf8'));
const PORT = 3490 + Math.floor(Math.random() * 100);
const BASE = `http://127.0.0.1:${PORT}`;
const ADMIN = 'answer-eval-admin-token-0123456789abcdef';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(method, url, body, headers = {}) {
  const response = await fetch(`${BASE}${url}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}
const admin = (method, url, body) => call(method, `/admin/v1${url}`, body, { Authorization: `Bearer ${ADMIN}` });

/** A fresh PostgreSQL database on the server of `url`, migrated; dropped by the returned function. */
async function freshPostgres(url) {
  const { default: pg } = await import('pg');
  const name = `answer_eval_${process.pid}`;
  const server = new pg.Client({ connectionString: url });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS ${name}`);
  await server.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  execFileSync(process.execPath, ['dist/cli/migrate.cli.js'], { cwd: root, env: { ...process.env, DATABASE_URL: target.toString() }, stdio: 'ignore' });
  return {
    url: target.toString(),
    drop: async () => {
      await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.end();
    },
  };
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'answer-eval-'));
  const postgres = typeof args.postgres === 'string' ? await freshPostgres(args.postgres) : undefined;
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(PORT),
    ADMIN_API_TOKEN: ADMIN,
    API_KEY_PEPPER: 'answer-eval-pepper-0123456789abcdef',
    WIDGET_TOKEN_SECRET: 'answer-eval-widget-secret-0123456789abcdef',
    DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MULTIPLIER: '100000',
    PUBLIC_KEY_RATE_LIMIT: '1000000',
    WEBHOOK_WORKER: 'false',
  };
  delete env.REDIS_URL;
  if (postgres) env.DATABASE_URL = postgres.url;
  else {
    delete env.DATABASE_URL;
    env.DATA_DIR = dataDir;
  }
  const log = path.join(dataDir, 'service.log');
  const logFd = openSync(log, 'w');
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: root, env, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  process.on('exit', () => child.kill('SIGKILL'));
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${BASE}/health/live`)).status < 500) break;
      } catch {}
      if (i > 600) throw new Error(`the service did not start: ${readFileSync(log, 'utf8').slice(-2000)}`);
      await sleep(200);
    }
    const report = await evaluate();
    print(report);
    if (typeof args.json === 'string') writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    console.error(readFileSync(log, 'utf8').slice(-3000));
    throw error;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    if (postgres) await postgres.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function evaluate() {
  const slug = `eval-${Date.now().toString(36)}`;
  const tenant = (await admin('POST', '/tenants', { name: 'Answer eval', slug, plan: 'enterprise' })).tenant;
  const publicKey = (await admin('POST', `/tenants/${tenant.id}/api-keys`, { name: 'eval widget', type: 'public', scopes: [] })).key;
  const secretKey = (await admin('POST', `/tenants/${tenant.id}/api-keys`, { name: 'eval', scopes: ['settings:write', 'settings:read', 'bots:read'] })).key;
  await call('PATCH', '/api/v1/settings', { visitorMessageLimit: { messages: 1000 } }, { 'X-API-Key': secretKey });
  const bots = {};
  const titles = {};
  for (const bot of corpus.bots) {
    bots[bot.key] = (await admin('POST', `/tenants/${tenant.id}/bots`, { name: bot.name.slice(0, 100), language: bot.language })).bot.id;
    // Optional bot settings of the run (e.g. synonyms), from bench/answer-bot-settings.json.
    const settings = botSettings()[bot.key];
    if (settings) await call('PATCH', `/api/v1/bots/${bots[bot.key]}/settings`, settings, { 'X-API-Key': secretKey });
  }
  for (const document of corpus.documents) {
    const id = (await admin('POST', `/tenants/${tenant.id}/bots/${bots[document.bot]}/documents`, { title: document.title, content: document.content }))
      .document.id;
    titles[id] = document.id.split('/')[1];
  }
  if (process.env.EMBEDDINGS_BASE_URL) await sleep(Number(args.embedWaitMs ?? 15_000));
  const widget = async (url, body, token) =>
    call('POST', `/api/v1/widget${url}`, body, { 'X-API-Key': publicKey, ...(token ? { 'X-Visitor-Token': token } : {}) });
  const conversations = {};
  const results = [];
  for (const q of questions) {
    if (!conversations[q.bot]) {
      const token = (await widget('/sessions', { botId: bots[q.bot] })).visitorToken;
      conversations[q.bot] = { token, id: (await widget('/conversations', {}, token)).conversation.id };
    }
    const { token, id } = conversations[q.bot];
    const started = process.hrtime.bigint();
    const { reply } = await widget(`/conversations/${id}/messages`, { content: q.question }, token);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const found = reply.sources.map((source) => titles[source.id]);
    results.push({ ...q, found, ms, at1: found.length > 0 && q.expected.includes(found[0]), any: found.some((f) => q.expected.includes(f)) });
  }
  return summarise(results);
}

function botSettings() {
  const file = typeof args.settings === 'string' ? args.settings : undefined;
  return file ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0;
};

function summarise(results) {
  const kinds = {};
  for (const kind of [...new Set(results.map((r) => r.kind)), 'all']) {
    const rows = kind === 'all' ? results : results.filter((r) => r.kind === kind);
    const answerable = rows.filter((r) => r.expected.length);
    const unanswerable = rows.filter((r) => !r.expected.length);
    kinds[kind] = {
      questions: rows.length,
      answerable: answerable.length,
      hitAt1: answerable.filter((r) => r.at1).length,
      hitAny: answerable.filter((r) => r.any).length,
      falseFallbacks: answerable.filter((r) => !r.found.length).length,
      unanswerable: unanswerable.length,
      correctRefusals: unanswerable.filter((r) => !r.found.length).length,
      medianMs: Math.round(median(rows.map((r) => r.ms)) * 10) / 10,
    };
  }
  return { kinds, results };
}

function print({ kinds, results }) {
  const pct = (n, d) => (d ? `${n}/${d} (${Math.round((100 * n) / d)}%)` : '-');
  console.log('kind          hit@1          hit@any        false fallbacks  correct refusals  median ms');
  for (const [kind, k] of Object.entries(kinds)) {
    console.log(
      `${kind.padEnd(13)} ${pct(k.hitAt1, k.answerable).padEnd(14)} ${pct(k.hitAny, k.answerable).padEnd(14)} ${pct(k.falseFallbacks, k.answerable).padEnd(16)} ${pct(k.correctRefusals, k.unanswerable).padEnd(17)} ${k.medianMs}`,
    );
  }
  if (args.verbose) {
    for (const r of results) {
      const ok = r.expected.length ? r.at1 : !r.found.length;
      if (!ok) console.log(`  ${r.kind.padEnd(12)} ${r.question} -> [${r.found.join(', ')}] expected [${r.expected.join(', ')}]`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
