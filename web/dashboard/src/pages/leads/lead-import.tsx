import { type FormEvent, useId, useState } from 'react';
import { api, ApiError, call } from '../../api/client';
import { useTenant } from '../../session/session-context';
import { CsvFileError, leadOfDetail, parseLeadCsv } from './lead-csv';

/** A key per chosen file: importing the same file twice (a double click, a retry) stores its leads once. */
const newIdempotencyKey = () =>
  `dashboard-import-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

/**
 * Imports a CSV file through `POST /api/v1/leads/import`: all the file's leads or none. Each problem
 * the API names (`leads[3].email`) is shown with the file's line, so the user can fix the file.
 */
export function LeadImport({ onImported }: { onImported: () => Promise<void> }) {
  const inputId = useId();
  const { paidPlan } = useTenant();
  const [file, setFile] = useState<File>();
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);
  const [summary, setSummary] = useState<string>();
  const [done, setDone] = useState<string>();

  const choose = (chosen: File | undefined) => {
    setFile(chosen);
    setKey(newIdempotencyKey());
    setProblems([]);
    setSummary(undefined);
    setDone(undefined);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setProblems([]);
    setSummary(undefined);
    setDone(undefined);
    if (!file) return setSummary('Choose a CSV file first.');
    setBusy(true);
    let lines: number[] = [];
    try {
      const parsed = await parseLeadCsv(await file.text());
      lines = parsed.lines;
      const answer = await call(api.POST('/api/v1/leads/import', { params: { header: { 'Idempotency-Key': key } }, body: { leads: parsed.leads } }));
      const ignored = parsed.ignoredColumns.length ? ` Columns not imported: ${parsed.ignoredColumns.join(', ')}.` : '';
      setDone(`Imported ${answer.imported} ${answer.imported === 1 ? 'lead' : 'leads'} from ${file.name}.${ignored}`);
      form.reset();
      setFile(undefined);
      await onImported();
    } catch (error) {
      if (error instanceof CsvFileError) setSummary(error.message);
      else if (error instanceof ApiError && error.details.length) {
        setSummary('Nothing was imported. Fix these lines in the file and import it again:');
        setProblems(
          error.details.map((detail) => {
            const lead = leadOfDetail(detail.field, lines);
            return lead ? `Line ${lead.line}: ${lead.field} ${detail.message}` : `${detail.field} ${detail.message}`;
          }),
        );
      } else setSummary(error instanceof ApiError ? `Nothing was imported: ${error.message}` : 'Nothing was imported: the file could not be read.');
    } finally {
      setBusy(false);
    }
  };

  const invalid = summary !== undefined;
  return (
    <form className="card" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="import-title">
      <h2 id="import-title">Import from CSV</h2>
      <div className="field">
        <label htmlFor={inputId}>CSV file</label>
        <p className="hint" id={`${inputId}-hint`}>
          A first line naming the columns: name and email, and any of phone, company, message, botId and tags (separated by ;). An export reads back as it is.
          Up to 1,000 leads; all are imported or none.
        </p>
        {!paidPlan && (
          <p className="hint" id={`${inputId}-plan`}>
            Importing leads needs the Pro plan.
          </p>
        )}
        <input
          id={inputId}
          type="file"
          accept=".csv,text/csv"
          aria-invalid={invalid || undefined}
          aria-describedby={`${inputId}-hint${invalid ? ` ${inputId}-error` : ''}`}
          onChange={(event) => choose(event.target.files?.[0])}
        />
      </div>
      {invalid && (
        <div className="form-error" role="alert" id={`${inputId}-error`}>
          <p>Error: {summary}</p>
          {problems.length > 0 && (
            <ul data-testid="import-problems">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <button type="submit" disabled={busy || !paidPlan} aria-describedby={paidPlan ? undefined : `${inputId}-plan`}>
        Import leads
      </button>
      {done && (
        <p role="status" className="saved">
          {done}
        </p>
      )}
    </form>
  );
}
