import { useId, useRef, useState } from 'react';
import { api, ApiError, call, ROLES, type Schemas } from '../api/client';
import { type Resource, useResource } from '../api/use-resource';
import { ConfirmButton } from '../components/confirm-button';
import { CopyButton } from '../components/copy-button';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { type Role, useSession, useTenant } from '../session/session-context';

type Member = Schemas['MemberResponse'];
type Invitation = Schemas['InvitationResponse'];

/** The API's 409 LAST_OWNER in words naming the person, and what to do instead. */
function lastOwnerInWords(error: unknown, name: string): unknown {
  if (!(error instanceof ApiError) || error.code !== 'LAST_OWNER') return error;
  return new ApiError(error.status, error.code, `${name} is the tenant's last owner: make another member owner first.`);
}

// The tables take the focus (tabIndex 0): on a narrow screen they scroll sideways in their own box,
// and a row may hold no control to reach it by keyboard (an accepted invitation, the only owner).
export default function MembersPage() {
  const { can } = useTenant();
  const { account, refresh } = useSession();
  const manager = can('tenant:manage');
  const members = useResource(() => call(api.GET('/api/v1/members')), []);
  const keyCounts = useResource(
    async () => (manager ? countKeysByCreator((await call(api.GET('/api/v1/api-keys'))).apiKeys) : new Map<string, number>()),
    [manager],
  );
  const invitations = useResource(async () => (manager ? (await call(api.GET('/api/v1/invitations'))).invitations : []), [manager]);
  const changed = async (member: Member) => {
    // A change of one's own role or membership changes what the dashboard shows.
    if (member.userId === account?.user.id) await refresh();
    // Removing or demoting a member deletes the invitations they sent, and maybe their keys: both lists are read again.
    await Promise.all([members.reload(), keyCounts.reload(), invitations.reload()]);
  };
  return (
    <>
      <PageTitle>Members</PageTitle>
      {!manager && <p className="hint">Only owners and admins manage members; you can leave this tenant.</p>}
      <Loaded resource={members}>
        {(data) => {
          const owners = data.members.filter((member) => member.role === 'owner').length;
          return (
            <table className="list" tabIndex={0}>
              <caption>People in this tenant</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  <th scope="col">Since</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.members.map((member) => (
                  <MemberRow
                    key={member.userId}
                    member={member}
                    manager={manager}
                    you={member.userId === account?.user.id}
                    onlyOwner={member.role === 'owner' && owners === 1}
                    keyCount={keyCounts.data?.get(member.userId) ?? 0}
                    onChanged={() => changed(member)}
                  />
                ))}
              </tbody>
            </table>
          );
        }}
      </Loaded>
      {manager && <Invitations invitations={invitations} />}
    </>
  );
}

function countKeysByCreator(keys: Schemas['ApiKeyResponse'][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const userId = key.createdBy?.type === 'user' ? key.createdBy.userId : undefined;
    if (userId) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  }
  return counts;
}

interface RowProps {
  member: Member;
  /** The user manages members (though maybe not this one). */
  manager: boolean;
  you: boolean;
  /** The tenant's only owner: neither demoted nor removed (409 LAST_OWNER), so the controls say so first. */
  onlyOwner: boolean;
  keyCount: number;
  onChanged: () => Promise<void>;
}

function MemberRow({ member, manager, you, onlyOwner, keyCount, onChanged }: RowProps) {
  const note = useId();
  const { assignableRoles } = useTenant();
  // The server's list: the roles one may give are the roles of the members one may change.
  const manages = assignableRoles.includes(member.role);
  const why = onlyOwner ? 'The only owner: make another member owner before changing or removing them.' : undefined;
  return (
    <tr data-testid="member">
      <th scope="row">
        {member.name}
        {you && ' (you)'}
      </th>
      <td>{member.email}</td>
      <td>{manages ? <RoleSelect member={member} roles={assignableRoles} blockedBy={why ? note : undefined} onChanged={onChanged} /> : member.role}</td>
      <td>{formatDate(member.createdAt)}</td>
      <td>
        {(manages || you) && <RemoveMember member={member} you={you} keyCount={keyCount} blockedBy={why ? note : undefined} onRemoved={onChanged} />}
        {why && (manages || you) && (
          <p className="hint" id={note}>
            {why}
          </p>
        )}
        {!manages && !you && manager && <p className="hint">Your role cannot change or remove a member who is {member.role}.</p>}
      </td>
    </tr>
  );
}

function RoleSelect({ member, roles, blockedBy, onChanged }: { member: Member; roles: readonly Role[]; blockedBy?: string; onChanged: () => Promise<void> }) {
  const next = useRef<Role>(member.role);
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.PATCH('/api/v1/members/{userId}', { params: { path: { userId: member.userId } }, body: { role: next.current } })).catch((error: unknown) => {
      throw lastOwnerInWords(error, member.name);
    });
    await onChanged();
  });
  return (
    <>
      <select
        aria-label={`Role of ${member.name}`}
        value={member.role}
        disabled={busy || Boolean(blockedBy)}
        aria-describedby={blockedBy}
        onChange={(event) => {
          next.current = event.target.value as Role;
          void submit();
        }}
      >
        {/* Shown only where `roles` holds the member's role (MemberRow), so the current value is an option. */}
        {roles.map((each) => (
          <option key={each} value={each}>
            {each}
          </option>
        ))}
      </select>
      <FormError errors={errors} />
    </>
  );
}

function RemoveMember({
  member,
  you,
  keyCount,
  blockedBy,
  onRemoved,
}: {
  member: Member;
  you: boolean;
  keyCount: number;
  blockedBy?: string;
  onRemoved: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const [revokeKeys, setRevokeKeys] = useState(false);
  const { submit, busy, errors } = useSubmit([], async () => {
    const query = revokeKeys && keyCount > 0 ? { revokeKeys: true } : {};
    await call(api.DELETE('/api/v1/members/{userId}', { params: { path: { userId: member.userId }, query } })).catch((error: unknown) => {
      throw lastOwnerInWords(error, member.name);
    });
    setConfirming(false);
    await onRemoved();
  });
  const keys = `${keyCount} API ${keyCount === 1 ? 'key' : 'keys'}`;
  if (!confirming)
    return (
      <button
        type="button"
        className="secondary"
        disabled={Boolean(blockedBy)}
        aria-describedby={blockedBy}
        onClick={() => setConfirming(true)}
        aria-label={you ? 'Leave this tenant' : `Remove ${member.name}`}
      >
        {you ? 'Leave' : 'Remove'}
      </button>
    );
  return (
    <div role="group" aria-label={you ? 'Leave this tenant?' : `Remove ${member.name}?`}>
      <p>
        {you
          ? 'Leave this tenant? You lose access to it at once.'
          : `Remove ${member.name} (${member.email})? They lose access at once, and the invitations they sent are withdrawn.`}
      </p>
      {keyCount > 0 && (
        <label className="scope">
          <input type="checkbox" checked={revokeKeys} onChange={() => setRevokeKeys(!revokeKeys)} /> Also delete the {keys} {you ? 'you' : 'they'} created
        </label>
      )}
      <ConfirmButton disabled={busy} onClick={() => void submit()}>
        {you ? 'Yes, leave' : `Yes, remove ${member.name}`}
      </ConfirmButton>{' '}
      <button type="button" className="secondary" onClick={() => setConfirming(false)}>
        {you ? 'Stay' : 'Keep them'}
      </button>
      <FormError errors={errors} />
    </div>
  );
}

function Invitations({ invitations }: { invitations: Resource<Invitation[]> }) {
  const { assignableRoles } = useTenant();
  const withheld = ROLES.filter((each) => !assignableRoles.includes(each));
  const [email, setEmail] = useState('');
  // The usual invitation, and a role every manager may give.
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
          {withheld.length > 0 && (
            <p className="hint" id="invite-role-hint">
              Your role cannot invite: {withheld.join(', ')}.
            </p>
          )}
          <select
            id="invite-role"
            value={role}
            aria-describedby={withheld.length > 0 ? 'invite-role-hint' : undefined}
            onChange={(event) => setRole(event.target.value as Role)}
          >
            {assignableRoles.map((each) => (
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
      <Loaded resource={invitations} isEmpty={(list) => list.length === 0} empty={<p>No invitations.</p>}>
        {(list) => (
          <table className="list" tabIndex={0}>
            <caption>Invitations</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((each) => (
                <tr key={each.id}>
                  <th scope="row">{each.email}</th>
                  <td>{each.role}</td>
                  <td>{each.status}</td>
                  <td>{formatDate(each.expiresAt)}</td>
                  <td>{each.status === 'pending' && <RevokeInvitation invitation={each} onRevoked={invitations.reload} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </>
  );
}

function RevokeInvitation({ invitation, onRevoked }: { invitation: Schemas['InvitationResponse']; onRevoked: () => Promise<void> }) {
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.DELETE('/api/v1/invitations/{id}', { params: { path: { id: invitation.id } } }));
    await onRevoked();
  });
  return (
    <>
      <button type="button" className="secondary" disabled={busy} onClick={() => void submit()} aria-label={`Revoke the invitation of ${invitation.email}`}>
        Revoke
      </button>
      <FormError errors={errors} />
    </>
  );
}
