// The bulk lead endpoints: POST /api/v1/leads/import (1,000 leads in one request, one transaction)
// and GET /api/v1/leads/export (200,000 leads streamed as CSV, the service's RSS sampled from /proc
// all along, so that "constant memory" is a measured figure).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { withDatabase } from './seed.mjs';

const EXPORT_LEADS = 200_000;
const IMPORT_ROUNDS = 7;

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function request(baseUrl, method, path, key, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      `${baseUrl}${path}`,
      {
        method,
        headers: {
          'X-API-Key': key,
          'X-Forwarded-Proto': 'https',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
        },
      },
      (res) => {
        let bytes = 0;
        let lines = 0;
        const chunks = [];
        res.on('data', (chunk) => {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 13) lines++; // CRLF ends a record; a cell may hold a bare LF
          if (res.headers['content-type']?.startsWith('application/json')) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode, bytes, lines, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function exportOnce(baseUrl, key, pid) {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const started = process.hrtime.bigint();
  const answer = await request(baseUrl, 'GET', '/api/v1/leads/export', key);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  if (answer.status !== 200) throw new Error(`export answered ${answer.status}`);
  return { before, peak: Math.max(peak, rssMb(pid)), seconds, bytes: answer.bytes, lines: answer.lines };
}

/** `key` needs leads:read and leads:write on the tenant `tenantId`, which gets 200,000 more leads. */
export async function measureLeadsBulk({ baseUrl, dbUrl, key, tenantId, pid, log }) {
  // Import: 1,000 leads a request, each with every field, timed end to end.
  const importMs = [];
  for (let round = 0; round < IMPORT_ROUNDS; round++) {
    const leads = Array.from({ length: 1_000 }, (_, i) => ({
      name: `Imported ${round}-${i}`,
      email: `import-${round}-${i}@example.com`,
      phone: '+1 555 0100',
      company: 'Bulk Co',
      message: 'Moved from the old CRM.',
      tags: ['import', `round-${round}`],
    }));
    const started = process.hrtime.bigint();
    const answer = await request(baseUrl, 'POST', '/api/v1/leads/import', key, { leads });
    importMs.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (answer.status !== 201 || JSON.parse(answer.text).imported !== 1_000) throw new Error(`import answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
  const importFigures = {
    leads: 1_000,
    rounds: IMPORT_ROUNDS,
    medianMs: +median(importMs).toFixed(1),
    minMs: +Math.min(...importMs).toFixed(1),
    maxMs: +Math.max(...importMs).toFixed(1),
  };
  log(`leads import of 1,000: median ${importFigures.medianMs} ms (min ${importFigures.minMs}, max ${importFigures.maxMs})`);

  // Export: the tenant's leads grown to 200,000 (plus the imported ones) by SQL.
  await withDatabase(dbUrl, (db) =>
    db.query(
      `INSERT INTO "Lead" (id, "tenantId", name, email, company, message, source, status, tags, "createdAt", "updatedAt")
       SELECT gen_random_uuid(), $1, 'Export ' || g, 'export-' || g || '@example.com', 'Company, "quoted" ' || (g % 100), E'line one\\nline two', 'api', 'new', ARRAY['a','b'],
              now() - g * interval '1 second', now()
       FROM generate_series(1, ${EXPORT_LEADS}) g`,
      [tenantId],
    ),
  );
  // Twice: the first export also grows the heap to its working size (V8 keeps what it grew);
  // the second shows whether memory grows with the number of rows.
  const runs = [];
  for (let run = 0; run < 2; run++) runs.push(await exportOnce(baseUrl, key, pid));
  // The tenant's leads: the ones made here, and in the full run those the seed gave it.
  const rows = await withDatabase(dbUrl, async (db) => (await db.query(`SELECT count(*)::int AS n FROM "Lead" WHERE "tenantId" = $1`, [tenantId])).rows[0].n);
  for (const r of runs) if (r.lines !== rows + 1) throw new Error(`the export wrote ${r.lines} lines, expected ${rows + 1}`);
  const [first, second] = runs;
  const exportFigures = {
    rows,
    megabytes: +(second.bytes / 1e6).toFixed(1),
    seconds: +second.seconds.toFixed(1),
    rowsPerSecond: Math.round(rows / second.seconds),
    first: { rssBeforeMb: Math.round(first.before), rssPeakMb: Math.round(first.peak) },
    rssBeforeMb: Math.round(second.before),
    rssPeakMb: Math.round(second.peak),
    rssGrowthMb: +(second.peak - second.before).toFixed(1),
  };
  log(
    `leads export of ${rows}: ${exportFigures.megabytes} MB in ${exportFigures.seconds} s (${exportFigures.rowsPerSecond} rows/s), RSS first ${exportFigures.first.rssBeforeMb} -> ${exportFigures.first.rssPeakMb} MB, second ${exportFigures.rssBeforeMb} -> ${exportFigures.rssPeakMb} MB`,
  );
  return { import: importFigures, export: exportFigures };
}

export function leadsBulkMarkdown(r) {
  return [
    `## Bulk leads: import and export`,
    ``,
    `| figure | value |`,
    `|---|---|`,
    `| POST /api/v1/leads/import, 1,000 leads with every field (${r.import.rounds} requests) | median ${r.import.medianMs} ms (min ${r.import.minMs}, max ${r.import.maxMs}) |`,
    `| GET /api/v1/leads/export, ${r.export.rows.toLocaleString('en-US')} leads | ${r.export.megabytes} MB of CSV in ${r.export.seconds} s (${r.export.rowsPerSecond.toLocaleString('en-US')} rows/s) |`,
    `| service RSS during a first export (the heap grows to its working size) | ${r.export.first.rssBeforeMb} MB before, ${r.export.first.rssPeakMb} MB at its peak |`,
    `| service RSS during a second export | ${r.export.rssBeforeMb} MB before, ${r.export.rssPeakMb} MB at its peak (+${r.export.rssGrowthMb} MB) |`,
    ``,
    `- Target: 1,000 leads imported in well under a second: ${r.import.medianMs < 1000 ? 'met' : 'missed'} (${r.import.medianMs} ms).`,
    `- Target: the export's RSS grows by no more than a few MB (second export): ${r.export.rssGrowthMb <= 10 ? 'met' : 'missed'} (+${r.export.rssGrowthMb} MB).`,
    ``,
  ].join('\n');
}
