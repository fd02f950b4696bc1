import { useState } from 'react';
import { api, call, type Schemas } from '../api/client';
import { useResource } from '../api/use-resource';
import { CopyButton } from '../components/copy-button';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { useTenant } from '../session/session-context';

type Role = Schemas['Role'];
const ROLES: Role[] = ['owner', 'admin', 'agent', 'viewer'];

export default function MembersPage() {
  const { role } = useTenant();
  const manager = role === 'owner' || role === 'admin';
  const members = useResource(() => call(api.GET('/api/v1/members')), []);
  return (
    <>
      <PageTitle>Members</PageTitle>
      <Loaded resource={members}>
        {(data) => (
          <table className="list">
            <caption>People in this tenant</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {data.members.map((member) => (
                <tr key={member.userId}>
                  <th scope="row">{member.name}</th>
                  <td>{member.email}</td>
                  <td>{member.role}</td>
                  <td>{formatDate(member.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      {manager && <Invitations />}
    </>
  );
}

function Invitations() {
  const invitations = useResource(() => call(api.GET('/api/v1/invitations')), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [link, setLink] = useState<string>();
  const { submit, busy, errors } = useSubmit(['email', 'role'], async () => {
    const answer = await call(api.POST('/api/v1/invitations', { body: { email, role } }));
    setLink(answer.acceptUrl);
    setEmail('');
    await invitations.reload();
  });
  return (
    <>
      <form className="card" onSubmit={submit} noValidate aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <FormError errors={errors} />
        <Field label="E-mail" name="email" type="email" required value={email} onChange={setEmail} errors={errors} />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {ROLES.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy}>
          Send invitation
        </button>
      </form>
      {link && (
        <section className="card" aria-labelledby="invite-link-title">
          <h2 id="invite-link-title">Invitation link</h2>
          <p>Send this link to the person (it is also mailed when the service sends mail). It is shown this once and is valid for 7 days.</p>
          <pre className="snippet" tabIndex={0}>
            <code data-testid="accept-url">{link}</code>
          </pre>
          <CopyButton text={link} label="Copy link" />
        </section>
      )}
      <Loaded resource={invitations} isEmpty={(data) => data.invitations.length === 0} empty={<p>No invitations.</p>}>
        {(data) => (
          <table className="list">
            <caption>Invitations</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {data.invitations.map((each) => (
                <tr key={each.id}>
                  <th scope="row">{each.email}</th>
                  <td>{each.role}</td>
                  <td>{each.status}</td>
                  <td>{formatDate(each.expiresAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </>
  );
}
