import { useMemo, useState } from 'react';
import { api, call, type Schemas } from '../api/client';
import { useResource } from '../api/use-resource';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { type FormErrors, NO_ERRORS, toFormErrors } from '../forms/form-errors';
import { LeadImport } from './leads/lead-import';

type LeadStatus = Schemas['LeadStatus'];
const STATUSES: LeadStatus[] = ['new', 'contacted', 'qualified', 'unqualified', 'converted'];

export default function LeadsPage() {
  const [search, setSearch] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [applied, setApplied] = useState({ search: '', from: '', to: '' });
  const query = useMemo(
    () => ({
      search: applied.search || undefined,
      from: applied.from ? `${applied.from}T00:00:00Z` : undefined,
      to: applied.to ? `${applied.to}T23:59:59Z` : undefined,
    }),
    [applied],
  );
  const leads = useResource(() => call(api.GET('/api/v1/leads', { params: { query: { ...query, limit: 100 } } })), [query]);
  const [exportError, setExportError] = useState<string>();
  const exportCsv = async () => {
    setExportError(undefined);
    const { data, response } = await api
      .GET('/api/v1/leads/export', { params: { query }, parseAs: 'blob' })
      .catch(() => ({ data: undefined, response: undefined }));
    if (!response?.ok || !data) return setExportError('The export failed. Please try again.');
    const link = document.createElement('a');
    link.href = URL.createObjectURL(data as Blob);
    link.download = 'leads.csv';
    document.body.append(link);
    link.click();
    link.remove();
    // After the browser has taken the file.
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  return (
    <>
      <PageTitle>Leads</PageTitle>
      <form
        className="card filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ search, from, to });
        }}
      >
        <div className="field">
          <label htmlFor="lead-search">Search name, e-mail or company</label>
          <input id="lead-search" type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="lead-from">From</label>
          <input id="lead-from" type="date" value={from} onChange={(event) => setFrom(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="lead-to">To</label>
          <input id="lead-to" type="date" value={to} onChange={(event) => setTo(event.target.value)} />
        </div>
        <button type="submit">Apply filters</button>{' '}
        <button type="button" className="secondary" onClick={() => void exportCsv()}>
          Export CSV
        </button>
        {exportError && (
          <p className="form-error" role="alert">
            Error: {exportError}
          </p>
        )}
      </form>
      <LeadImport onImported={leads.reload} />
      <Loaded
        resource={leads}
        isEmpty={(data) => data.leads.length === 0}
        empty={<p>No leads match. Leads arrive from the widget's contact form and the API.</p>}
      >
        {(data) => (
          <table className="list">
            <caption>{data.pagination.total} leads</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Company</th>
                <th scope="col">Source</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {data.leads.map((lead) => (
                <LeadRow key={lead.id} lead={lead} />
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </>
  );
}

function LeadRow({ lead }: { lead: Schemas['LeadResponse'] }) {
  const [status, setStatus] = useState(lead.status);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const change = async (next: LeadStatus) => {
    const before = status;
    setStatus(next);
    setErrors(NO_ERRORS);
    try {
      await call(api.PATCH('/api/v1/leads/{id}', { params: { path: { id: lead.id } }, body: { status: next } }));
    } catch (error) {
      // The list shows what is stored: the old status, and why the new one was refused.
      setStatus(before);
      setErrors(toFormErrors(error, ['status']));
    }
  };
  return (
    <tr>
      <th scope="row">{lead.name}</th>
      <td>{lead.email}</td>
      <td>{lead.company ?? '—'}</td>
      <td>{lead.source}</td>
      <td>{formatDate(lead.createdAt)}</td>
      <td>
        <label className="visually-hidden" htmlFor={`status-${lead.id}`}>
          Status of {lead.name}
        </label>
        <select id={`status-${lead.id}`} value={status} onChange={(event) => void change(event.target.value as LeadStatus)}>
          {STATUSES.map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
        {(errors.fields.status ?? errors.form) && (
          <p className="field-error" role="alert">
            Error: {errors.fields.status ?? errors.form}
          </p>
        )}
      </td>
    </tr>
  );
}
