import { useState } from 'react';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { PASSWORD_HINT } from '../forms/password-hint';
import { useSubmit } from '../forms/use-submit';
import { useSession } from '../session/session-context';

export default function AccountPage() {
  const { account, refresh } = useSession();
  const [name, setName] = useState(account?.user.name ?? '');
  const [password, setPassword] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const sessions = useResource(() => call(api.GET('/auth/v1/sessions')), []);
  const { submit, busy, errors } = useSubmit(['name', 'password', 'currentPassword'], async () => {
    setSaved(false);
    await call(api.PATCH('/auth/v1/me', { body: { name, currentPassword, ...(password ? { password } : {}) } }));
    setPassword('');
    setCurrentPassword('');
    setSaved(true);
    await Promise.all([refresh(), sessions.reload()]);
  });
  return (
    <>
      <PageTitle>Account</PageTitle>
      <form className="card" onSubmit={submit} noValidate aria-labelledby="profile-title">
        <h2 id="profile-title">Name and password</h2>
        <FormError errors={errors} />
        <Field label="Name" name="name" autoComplete="name" value={name} onChange={setName} errors={errors} />
        <Field
          label="New password (optional)"
          name="password"
          type="password"
          autoComplete="new-password"
          hint={`${PASSWORD_HINT} A new password signs out your other sessions.`}
          value={password}
          onChange={setPassword}
          errors={errors}
        />
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          value={currentPassword}
          onChange={setCurrentPassword}
          errors={errors}
        />
        <button type="submit" disabled={busy}>
          Save
        </button>
        {saved && (
          <p role="status" className="saved">
            Saved.
          </p>
        )}
      </form>
      <section className="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <Loaded resource={sessions}>
          {(data) => (
            <ul>
              {data.sessions.map((session) => (
                <li key={session.id}>
                  {session.userAgent ?? 'Unknown browser'} · {session.ip ?? ''} · last seen {formatDate(session.lastSeenAt)}{' '}
                  {session.current ? (
                    '(this browser)'
                  ) : (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`End session: ${session.userAgent ?? 'unknown browser'}, last seen ${formatDate(session.lastSeenAt)}`}
                      onClick={() =>
                        void call(api.DELETE('/auth/v1/sessions/{id}', { params: { path: { id: session.id } } })).then(sessions.reload, sessions.reload)
                      }
                    >
                      End session
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </section>
    </>
  );
}
