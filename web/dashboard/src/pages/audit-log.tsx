import { useState } from 'react';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { useTenant } from '../session/session-context';

export default function AuditLogPage() {
  const { can } = useTenant();
  if (!can('tenant:manage'))
    return (
      <>
        <PageTitle>Audit log</PageTitle>
        <p className="hint">Your role does not read the audit log: an owner or admin of this tenant does.</p>
      </>
    );
  return <AuditLog />;
}

function AuditLog() {
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [applied, setApplied] = useState({ action: '', actor: '' });
  const events = useResource(
    () => call(api.GET('/api/v1/audit-log', { params: { query: { limit: 100, action: applied.action || undefined, actor: applied.actor || undefined } } })),
    [applied],
  );
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <form
        className="card filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ action, actor });
        }}
      >
        <div className="field">
          <label htmlFor="audit-action">Action (e.g. bot.created)</label>
          <input id="audit-action" value={action} onChange={(event) => setAction(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="audit-actor">Actor (e.g. user:&lt;id&gt;)</label>
          <input id="audit-actor" value={actor} onChange={(event) => setActor(event.target.value)} />
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <Loaded resource={events} isEmpty={(data) => data.events.length === 0} empty={<p>No events match.</p>}>
        {(data) => (
          <table className="list">
            <caption>Newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">IP</th>
              </tr>
            </thead>
            <tbody>
              {data.events.map((event) => (
                <tr key={event.id}>
                  <td>{formatDate(event.createdAt)}</td>
                  <th scope="row">{event.action}</th>
                  <td>{event.actor}</td>
                  <td>
                    {event.targetType} {event.targetId}
                  </td>
                  <td>{event.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </>
  );
}
