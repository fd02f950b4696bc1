import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { api, call } from '../api/client';
import { PublicFrame } from '../components/public-frame';
import { Field, FormError } from '../forms/fields';
import { PASSWORD_HINT } from '../forms/password-hint';
import { useSubmit } from '../forms/use-submit';
import { useSession } from '../session/session-context';

/**
 * The invitation link. Signed in with the invited e-mail: one button adds the membership. New to
 * the platform: a name and a password create the account.
 */
export default function AcceptInvitationPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { status, account, signedIn, chooseTenant } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const existing = status === 'signedIn';
  const { submit, busy, errors } = useSubmit(['name', 'password'], async () => {
    const before = new Set(account?.memberships.map((each) => each.tenant.id));
    const answer = await call(api.POST('/auth/v1/invitations/accept', { body: existing ? { token } : { token, name, password } }));
    const joined = answer.memberships.find((each) => !before.has(each.tenant.id));
    if (joined) chooseTenant(joined.tenant.id);
    signedIn(answer);
    void navigate('/', { replace: true });
  });
  return (
    <PublicFrame title="Accept your invitation">
      <form onSubmit={submit} noValidate>
        <FormError errors={errors} />
        {existing ? (
          <p>You are signed in as {account?.user.email}. Accepting adds the tenant to your account.</p>
        ) : (
          <>
            <p>Create your account to join the team.</p>
            <Field label="Your name" name="name" autoComplete="name" required value={name} onChange={setName} errors={errors} />
            <Field
              label="Password"
              name="password"
              type="password"
              autoComplete="new-password"
              required
              hint={PASSWORD_HINT}
              value={password}
              onChange={setPassword}
              errors={errors}
            />
          </>
        )}
        <button type="submit" disabled={busy || !token}>
          Accept invitation
        </button>
      </form>
    </PublicFrame>
  );
}
