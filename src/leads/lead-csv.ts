import { stringify, type Stringifier } from 'csv-stringify';
import { LeadResponse } from './lead.mapper';

/** The export's columns: the Lead fields, in the API's order. */
export const LEAD_CSV_COLUMNS: readonly (keyof LeadResponse)[] = [
  'id', 'name', 'email', 'phone', 'company', 'message', 'botId', 'conversationId', 'source', 'status', 'tags', 'createdAt', 'updatedAt',
];

/** One lead as a CSV record: null is an empty cell, tags are joined by `;`. */
export function toLeadCsvRecord(lead: LeadResponse): string[] {
  return LEAD_CSV_COLUMNS.map((column) => {
    const value = lead[column];
    return Array.isArray(value) ? value.join(';') : (value ?? '');
  });
}

/**
 * A stream turning records into RFC 4180 CSV (quotes around cells with commas, quotes or line
 * breaks) with a header row. A cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
 * (csv-stringify's escape_formulas): a spreadsheet opening the file would run it as a formula.
 */
export function leadCsvStringifier(): Stringifier {
  return stringify({ header: true, columns: [...LEAD_CSV_COLUMNS], escape_formulas: true, record_delimiter: 'windows' });
}
