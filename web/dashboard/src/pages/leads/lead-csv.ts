import type { Schemas } from '../../api/client';

type NewLead = Schemas['CreateLeadDto'];

/** What a file holds for the import: the leads, the line each starts on, and the columns left out. */
export interface ParsedLeads {
  leads: NewLead[];
  /** lines[i]: the file's line where leads[i] begins (the header is line 1). */
  lines: number[];
  ignoredColumns: string[];
}

/** The columns the import reads, by their header (any case); the others are ignored, so an export reads back. */
const COLUMNS = { name: 'name', email: 'email', phone: 'phone', company: 'company', message: 'message', botid: 'botId', tags: 'tags' } as const;
type Column = (typeof COLUMNS)[keyof typeof COLUMNS];

/** A problem with the file itself, before any lead is sent. */
export class CsvFileError extends Error {}

/**
 * Reads a CSV file (RFC 4180, a header row, UTF-8 with or without BOM) into leads for
 * `POST /api/v1/leads/import`. Empty optional cells are left out; name and email are sent as they
 * are, so the API names what is wrong with them. Tags are separated by `;`, as the export writes them.
 * csv-parse loads with the first import, not with the page.
 */
export async function parseLeadCsv(text: string): Promise<ParsedLeads> {
  const { parse, CsvError } = await import('csv-parse/browser/esm/sync');
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, { bom: true, info: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as unknown as typeof rows;
  } catch (error) {
    if (error instanceof CsvError) throw new CsvFileError(`The file is not valid CSV: ${error.message}`);
    throw error;
  }
  const [header, ...records] = rows;
  if (!header) throw new CsvFileError('The file is empty.');
  const columns = header.record.map((cell) => COLUMNS[cell.toLowerCase().replace(/[^a-z]/g, '') as keyof typeof COLUMNS] as Column | undefined);
  if (!columns.includes('name') || !columns.includes('email')) throw new CsvFileError('The first line must name the columns, with at least name and email.');
  if (records.length === 0) throw new CsvFileError('The file has a header but no leads.');
  const leads = records.map(({ record }) => {
    const lead: NewLead = { name: '', email: '' };
    columns.forEach((column, index) => {
      const cell = record[index] ?? '';
      if (!column) return;
      if (column === 'name' || column === 'email') lead[column] = cell;
      else if (column === 'tags') {
        const tags = cell
          .split(';')
          .map((tag) => tag.trim())
          .filter(Boolean);
        if (tags.length) lead.tags = tags;
      } else if (cell) lead[column] = cell;
    });
    return lead;
  });
  // info.lines is the line a record ends on; a record spanning lines (a quoted line break) starts earlier.
  const lines = records.map(({ record, info }) => info.lines - record.reduce((breaks, cell) => breaks + (cell.match(/\r\n|\r|\n/g)?.length ?? 0), 0));
  const ignoredColumns = header.record.filter((_, index) => !columns[index]);
  return { leads, lines, ignoredColumns };
}

/** `leads[3].email` → line of the fourth lead and `email`; undefined for what names no lead. */
export function leadOfDetail(field: string, lines: readonly number[]): { line: number; field: string } | undefined {
  const match = /^leads\[(\d+)\]\.?(.*)$/.exec(field);
  if (!match) return undefined;
  const line = lines[Number(match[1])];
  return line === undefined ? undefined : { line, field: match[2] || 'the row' };
}
