import { lazy, Suspense, useState } from 'react';
import { api, call, type Schemas, SCOPES } from '../api/client';
import { useResource } from '../api/use-resource';
import { ShownOnce } from '../components/shown-once';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { useTenant } from '../session/session-context';

const Chart = lazy(() => import('../components/chart'));
type Scope = Schemas['Scope'];

export default function ApiKeysPage() {
  const { can } = useTenant();
  if (!can('tenant:manage'))
    return (
      <>
        <PageTitle>API keys</PageTitle>
        <p className="hint">Your role does not manage API keys: an owner or admin of this tenant creates and deletes them.</p>
      </>
    );
  return <ManagedKeys />;
}

function ManagedKeys() {
  const keys = useResource(() => call(api.GET('/api/v1/api-keys')), []);
  const [created, setCreated] = useState<string>();
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <CreateKeyForm
        onCreated={async (key) => {
          setCreated(key);
          await keys.reload();
        }}
      />
      {created && (
        <ShownOnce title="Your new key" value={created} testId="new-key" copyLabel="Copy key" onDone={() => setCreated(undefined)}>
          <p>Copy it now: it is shown this once and cannot be shown again.</p>
        </ShownOnce>
      )}
      <Loaded resource={keys} isEmpty={(data) => data.apiKeys.length === 0} empty={<p>No keys yet.</p>}>
        {({ apiKeys }) => (
          <ul className="keys">
            {apiKeys.map((key) => (
              <KeyItem key={key.id} apiKey={key} onDeleted={keys.reload} />
            ))}
          </ul>
        )}
      </Loaded>
    </>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'secret' | 'public'>('secret');
  const [scopes, setScopes] = useState<Scope[]>(['bots:read']);
  const [expiresOn, setExpiresOn] = useState('');
  const { submit, busy, errors } = useSubmit(['name', 'type', 'scopes', 'expiresAt'], async () => {
    const expiresAt = expiresOn ? new Date(`${expiresOn}T23:59:59Z`).toISOString() : null;
    // A public key takes no scopes: the ones ticked before switching to public are not sent.
    const body = type === 'public' ? { name, type, expiresAt } : { name, type, scopes, expiresAt };
    const answer = await call(api.POST('/api/v1/api-keys', { body }));
    setName('');
    await onCreated(answer.key);
  });
  const toggle = (scope: Scope) => setScopes((current) => (current.includes(scope) ? current.filter((each) => each !== scope) : [...current, scope]));
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="new-key">
      <h2 id="new-key">New key</h2>
      <FormError errors={errors} />
      <Field label="Key name" name="name" required maxLength={100} value={name} onChange={setName} errors={errors} />
      <fieldset>
        <legend>Type</legend>
        <label>
          <input type="radio" name="type" checked={type === 'secret'} onChange={() => setType('secret')} /> Secret (your servers; Pro and higher)
        </label>
        <label>
          <input type="radio" name="type" checked={type === 'public'} onChange={() => setType('public')} /> Public (the widget on your site)
        </label>
      </fieldset>
      {type === 'secret' && (
        <fieldset aria-describedby={errors.fields.scopes ? 'scopes-error' : undefined}>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="scope">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} /> {scope}
            </label>
          ))}
          {errors.fields.scopes && (
            <p className="field-error" id="scopes-error">
              Error: {errors.fields.scopes}
            </p>
          )}
        </fieldset>
      )}
      <Field label="Expires on (optional)" name="expiresAt" type="date" value={expiresOn} onChange={setExpiresOn} errors={errors} />
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}

function KeyItem({ apiKey, onDeleted }: { apiKey: Schemas['ApiKeyResponse']; onDeleted: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [showActivity, setShowActivity] = useState(false);
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: apiKey.id } } }));
    await onDeleted();
  });
  return (
    <li className="card">
      <h2 className="key-name">{apiKey.name}</h2>
      <p>
        {apiKey.type} key{' '}
        <code>
          {apiKey.prefix}…{apiKey.last4}
        </code>{' '}
        · scopes: {apiKey.scopes.join(', ') || 'none'} · expires {formatDate(apiKey.expiresAt)} · last used {formatDate(apiKey.lastUsedAt)} · created by{' '}
        {creatorOf(apiKey.createdBy)}
      </p>
      <button type="button" className="secondary" aria-expanded={showActivity} onClick={() => setShowActivity(!showActivity)}>
        Activity, 30 days
      </button>{' '}
      {confirming ? (
        <span role="group" aria-label={`Delete ${apiKey.name}?`}>
          Delete this key? Requests with it fail at once.{' '}
          <button type="button" className="danger" disabled={busy} onClick={() => void submit()}>
            Yes, delete key
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)} aria-label={`Delete ${apiKey.name}`}>
          Delete
        </button>
      )}
      <FormError errors={errors} />
      {showActivity && <KeyActivity id={apiKey.id} name={apiKey.name} />}
    </li>
  );
}

/** Who created a key, in words: a member's name, the platform's admin API, another key, or unknown (keys made before this was recorded). */
function creatorOf(createdBy: Schemas['ApiKeyResponse']['createdBy']): string {
  if (!createdBy) return 'unknown';
  if (createdBy.type === 'user') return createdBy.name ?? 'a deleted account';
  if (createdBy.type === 'api-key') return 'another API key';
  return 'the platform (admin API)';
}

function KeyActivity({ id, name }: { id: string; name: string }) {
  const activity = useResource(() => call(api.GET('/api/v1/api-keys/{id}/activity', { params: { path: { id } } })), [id]);
  return (
    <Loaded resource={activity}>
      {({ days }) => (
        <Suspense fallback={<p role="status">Loading chart…</p>}>
          <Chart
            title={`Requests with ${name}, last 30 days`}
            days={days.map((day) => day.date)}
            series={[
              { label: 'Requests', color: '#1d4ed8', values: days.map((day) => day.requests) },
              { label: 'Errors', color: '#b91c1c', dash: [6, 3], values: days.map((day) => day.errors) },
            ]}
          />
        </Suspense>
      )}
    </Loaded>
  );
}
