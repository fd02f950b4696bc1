import { stringify, type Stringifier } from 'csv-stringify';
import { LeadResponse } from './lead.mapper';

/** The export's columns: the Lead fields, in the API's order. */
export const LEAD_CSV_COLUMNS: readonly (keyof LeadResponse)[] = [
  'id',
  'name',
  'email',
  'phone',
  'company',
  'message',
  'botId',
  'conversationId',
  'source',
  'status',
  'tags',
  'createdAt',
  'updatedAt',
];

/** What separates tags in the tags cell; a tag holding a separator is quoted. */
export const TAG_SEPARATOR = '; ';

/**
 * A formula character at the start of a cell, or right after a `;` or `,` (and any spaces): a
 * spreadsheet that splits the file on `;` or `,` (its locale's separator) sees a cell starting there.
 */
const FORMULA_START = /(^|[;,] *)(?=[=+\-@\t\r])/g;

/** Characters that make a cell (RFC 4180) or a tag need quotes. */
const NEEDS_QUOTES = /[";,\r\n]/;

/**
 * Prefixes `'` to every formula start (spreadsheet formula injection), so that no cell a
 * spreadsheet reads, however it splits the text, begins with `=`, `+`, `-`, `@`, tab or CR.
 */
export function escapeFormulas(value: string): string {
  return value.replace(FORMULA_START, "$1'");
}

/** One tag as the tags cell holds it: formula-escaped, and quoted (RFC 4180) when it holds `"`, `,`, `;` or a line break. */
function tagCell(tag: string): string {
  const escaped = escapeFormulas(tag);
  return NEEDS_QUOTES.test(escaped) ? `"${escaped.replaceAll('"', '""')}"` : escaped;
}

/**
 * One lead as a CSV record: null is an empty cell, tags are joined by `; ` after each is escaped
 * (so `["bulk","a;b"]` reads back as `bulk; "a;b"`), every cell is formula-escaped.
 */
export function toLeadCsvRecord(lead: LeadResponse): string[] {
  return LEAD_CSV_COLUMNS.map((column) => {
    const value = lead[column];
    return escapeFormulas(Array.isArray(value) ? value.map(tagCell).join(TAG_SEPARATOR) : (value ?? ''));
  });
}

/**
 * A stream turning records into RFC 4180 CSV with a header row and CRLF line ends. Every cell
 * holding `"`, `,`, `;`, CR or LF is quoted: csv-stringify alone leaves a lone LF (or `;`)
 * unquoted when records end in CRLF, and readers that take any line break as a record's end
 * (Python's csv, spreadsheets) then split the record.
 */
export function leadCsvStringifier(): Stringifier {
  return stringify({ header: true, columns: [...LEAD_CSV_COLUMNS], quoted_match: NEEDS_QUOTES, record_delimiter: 'windows' });
}
