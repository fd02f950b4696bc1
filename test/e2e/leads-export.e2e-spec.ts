import { parse } from 'csv-parse/sync';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';

type Lead = Record<string, unknown> & { id: string; tags: string[] };

const COLUMNS = ['id', 'name', 'email', 'phone', 'company', 'message', 'botId', 'conversationId', 'source', 'status', 'tags', 'createdAt', 'updatedAt'];

/** A formula character at the start of a cell or after a `;` or `,` (and spaces) gets a leading `'`. */
const cell = (value: string) => value.replace(/(^|[;,] *)(?=[=+\-@\t\r])/g, "$1'");
const unescapeFormulas = (value: string) => value.replace(/(^|[;,] *)'(?=[=+\-@\t\r])/g, '$1');
/** A tag as the tags cell holds it: escaped, then quoted when it holds a quote, separator or line break. */
const tagCell = (tag: string) => (/[";,\r\n]/.test(cell(tag)) ? `"${cell(tag).replaceAll('"', '""')}"` : cell(tag));

/** A lead as the export writes it: null is an empty cell, tags are joined by `; `. */
const asCsvRecord = (lead: Lead) =>
  Object.fromEntries(COLUMNS.map((column) => [column, cell(column === 'tags' ? lead.tags.map(tagCell).join('; ') : ((lead[column] as string | null) ?? ''))]));

/** The tags of a tags cell, read back: a `; `-separated list of RFC 4180 fields whose formula escapes are undone. */
const readTags = (value: string) => (value === '' ? [] : (parse(value, { delimiter: '; ', relax_quotes: false }) as string[][])[0].map(unescapeFormulas));

/** Strict RFC 4180, and any line break outside quotes ends a record (as Python's csv and spreadsheets read it). */
const strictRecords = (csv: string) =>
  parse(csv, {
    columns: true,
    bom: false,
    relax_quotes: false,
    relax_column_count: false,
    skip_empty_lines: false,
    record_delimiter: ['\r\n', '\n', '\r'],
  }) as Record<string, string>[];

/** Every piece of the file a spreadsheet splitting on `;` or `,` (or a line break) could read as a cell, spaces and an opening quote removed. */
const piecesStartingAFormula = (csv: string) =>
  csv
    .split(/[;,\r\n]/)
    .map((piece) => piece.replace(/^ *"?/, ''))
    .filter((piece) => /^[=+\-@\t\r]/.test(piece));

describe('Leads: GET /api/v1/leads/export', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let botId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    botId = (await createBot(t, tenant.id)).id;
  });
  afterAll(() => t.close());

  const exportCsv = (query = '', key = tenant.key) =>
    t
      .http()
      .get(`/api/v1/leads/export${query}`)
      .set('X-API-Key', key)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      });
  const records = (csv: string) => parse(csv, { columns: true, bom: false }) as Record<string, string>[];
  const list = async (query: string, key = tenant.key) => {
    const leads: Lead[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await t.http().get(`/api/v1/leads?limit=100&offset=${offset}${query}`).set('X-API-Key', key).expect(200)).body;
      leads.push(...page.leads);
      if (!page.pagination.hasMore) return leads;
    }
  };
  const importLeads = async (leads: object[], key = tenant.key) =>
    (await t.http().post('/api/v1/leads/import').set('X-API-Key', key).send({ leads }).expect(201)).body.leads as Lead[];

  it('streams every lead, newest first, as CSV equal to the list, with a header row of the Lead fields', async () => {
    await importLeads([
      { name: 'Doe, Jane', email: 'jane@example.com', company: 'Quote "Co"', message: 'line one\nline two\r\nline three', tags: ['a', 'b'], botId },
      { name: 'Émile Zoë 東京', email: 'emile@example.com', phone: '+33 1', tags: [] },
    ]);
    const response = await exportCsv().expect(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="leads.csv"');
    expect(response.body.split('\r\n')[0]).toBe(COLUMNS.join(','));
    expect(records(response.body)).toEqual((await list('')).map(asCsvRecord));
  });

  // Tab and CR cannot start a field sent through the API (fields are trimmed); the rest can.
  it('escapes cells a spreadsheet would run as formulas with a leading quote', async () => {
    const names = ['=HYPERLINK("http://evil")', '+1+1', '-2+3', '@SUM(A1)'];
    const imported = await importLeads(names.map((name, i) => ({ name: `x${name}`, email: `f${i}@example.com`, company: name, message: name })));
    const rows = records((await exportCsv().expect(200)).body);
    for (const lead of imported) {
      const row = rows.find((r) => r.id === lead.id)!;
      expect(row.company).toBe(`'${lead.company as string}`);
      expect(row.message).toBe(`'${lead.message as string}`);
      expect(row.name).toBe(lead.name);
    }
    const tagged = (await importLeads([{ name: 'Tags', email: 'tags@example.com', tags: ['=1', 'b'] }]))[0];
    expect(rows.length).toBeGreaterThan(0);
    expect(records((await exportCsv().expect(200)).body).find((r) => r.id === tagged.id)!.tags).toBe("'=1; b");
  });

  it('writes one record per lead that a strict RFC 4180 reader reads back whole, with no cell starting a formula however the file is split', async () => {
    const tricky = await createTenant(t, { plan: 'enterprise' });
    const texts = ['line one\nline two', 'cr\rinside', 'crlf\r\ninside', 'x;=1+1;y', 'a,-2', 'semi; +3', 'a;b', 'say "hi"', 'x,@SUM(A1)', 'tab;\t=1', 'plain'];
    const tagLists = [['bulk', 'a;b'], ['ok', '=1+1'], ['x; y', 'q"t'], ['c,d', '-1'], ['two\nlines'], []];
    const imported = await importLeads(
      Array.from({ length: 300 }, (_, i) => ({
        name: `Lead ${texts[i % texts.length]} ${i}`,
        email: `t${i}@example.com`,
        company: texts[(i + 3) % texts.length],
        message: texts[(i + 7) % texts.length],
        tags: tagLists[i % tagLists.length],
      })),
      tricky.key,
    );
    const csv = (await exportCsv('', tricky.key).expect(200)).body as string;
    const rows = strictRecords(csv);
    expect(rows).toHaveLength(imported.length);
    const leads = await list('', tricky.key);
    expect(rows).toEqual(leads.map(asCsvRecord));
    for (const [row, lead] of rows.map((r, i) => [r, leads[i]] as const)) {
      expect(readTags(row.tags)).toEqual(lead.tags);
      expect(unescapeFormulas(row.message)).toBe(lead.message);
    }
    expect(readTags(rows.find((r) => r.tags.startsWith('bulk'))!.tags)).toEqual(['bulk', 'a;b']);
    expect(piecesStartingAFormula(csv)).toEqual([]);
  });

  it('exports exactly the leads the list filters select: botId, search, from and to', async () => {
    const mine = await createTenant(t, { plan: 'enterprise' });
    const bot = (await createBot(t, mine.id)).id;
    await importLeads(
      Array.from({ length: 30 }, (_, i) => ({ name: i % 3 ? `Plain ${i}` : `Searchable ${i}`, email: `s${i}@example.com`, botId: i % 2 ? bot : null })),
      mine.key,
    );
    const from = (await list('', mine.key))[10].createdAt as string;
    for (const query of [
      `?botId=${bot}`,
      '?search=searchable',
      `?from=${encodeURIComponent(from)}`,
      `?to=${encodeURIComponent(from)}`,
      `?botId=${bot}&search=searchable`,
    ]) {
      const exported = records((await exportCsv(query, mine.key).expect(200)).body);
      expect(exported).toEqual((await list(`&${query.slice(1)}`, mine.key)).map(asCsvRecord));
    }
  });

  it('writes each of more leads than one read holds exactly once, in order', async () => {
    const many = await createTenant(t, { plan: 'enterprise' });
    for (let batch = 0; batch < 3; batch++) {
      await importLeads(
        Array.from({ length: 900 }, (_, i) => ({ name: `Lead ${batch}-${i}`, email: `l${batch}-${i}@example.com` })),
        many.key,
      );
    }
    const exported = records((await exportCsv('', many.key).expect(200)).body);
    expect(exported).toHaveLength(2_700);
    expect(new Set(exported.map((row) => row.id)).size).toBe(2_700);
    expect(exported.map((row) => row.id)).toEqual((await list('', many.key)).map((lead) => lead.id));
  });

  it('answers only the header row for a tenant without leads, and never another tenant’s leads', async () => {
    const empty = await createTenant(t, { plan: 'enterprise' });
    expect((await exportCsv('', empty.key).expect(200)).body).toBe(`${COLUMNS.join(',')}\r\n`);
  });

  it.each([
    ['?limit=10', 'limit', 'is not an allowed field'],
    ['?offset=0', 'offset', 'is not an allowed field'],
    ['?from=yesterday', 'from', 'must be an ISO 8601 date or date-time'],
    ['?botId=nope', 'botId', 'must be a UUID'],
  ])('refuses %s', async (query, field, message) => {
    const response = await t.http().get(`/api/v1/leads/export${query}`).set('X-API-Key', tenant.key);
    expectError(response, 400, 'VALIDATION_ERROR', [{ field, message }]);
  });

  it('refuses from later than to', async () => {
    const response = await t.http().get('/api/v1/leads/export?from=2026-02-01&to=2026-01-01').set('X-API-Key', tenant.key);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field: 'from', message: expect.any(String) }]);
  });

  it('needs leads:read', async () => {
    const writeOnly = await createKey(t, tenant.id, { scopes: ['leads:write'] });
    expectError(await t.http().get('/api/v1/leads/export').set('X-API-Key', writeOnly.key), 403, 'INSUFFICIENT_SCOPE');
  });
});
