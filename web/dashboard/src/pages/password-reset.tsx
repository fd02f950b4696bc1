import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, call } from '../api/client';
import { PublicFrame } from '../components/public-frame';
import { Field, FormError } from '../forms/fields';
import { PASSWORD_HINT } from '../forms/password-hint';
import { useSubmit } from '../forms/use-submit';

/** Without a token: ask for a reset link. With ?token= (the mailed link): choose a new password. */
export default function PasswordResetPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return token ? <ChooseNewPassword token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { submit, busy, errors } = useSubmit(['email'], async () => {
    await call(api.POST('/auth/v1/password-resets', { body: { email } }));
    setSent(true);
  });
  return (
    <PublicFrame title="Reset your password">
      {sent ? (
        <p role="status">If an account exists for {email}, a reset link is on its way. It is valid for one hour.</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <FormError errors={errors} />
          <Field label="E-mail" name="email" type="email" autoComplete="email" required value={email} onChange={setEmail} errors={errors} />
          <button type="submit" disabled={busy}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/">Back to sign in</Link>
      </p>
    </PublicFrame>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { submit, busy, errors } = useSubmit(['password', 'token'], async () => {
    await call(api.POST('/auth/v1/password-resets/confirm', { body: { token, password } }));
    setDone(true);
  });
  return (
    <PublicFrame title="Choose a new password">
      {done ? (
        <p role="status">
          Your password is changed and every session ended. <Link to="/">Sign in</Link> with the new one.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <FormError errors={errors} />
          {errors.fields.token && (
            <p className="form-error" role="alert">
              Error: this link is invalid or expired. <Link to="/password-reset">Ask for a new one</Link>.
            </p>
          )}
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            hint={PASSWORD_HINT}
            value={password}
            onChange={setPassword}
            errors={errors}
          />
          <button type="submit" disabled={busy}>
            Change password
          </button>
        </form>
      )}
    </PublicFrame>
  );
}
