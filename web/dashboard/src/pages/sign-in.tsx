import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, call } from '../api/client';
import { PublicFrame } from '../components/public-frame';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { useSession } from '../session/session-context';

/** Shown for every dashboard path without a session; after sign-in the user lands where they were going. */
export function SignInPage({ from }: { from: string }) {
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { submit, busy, errors } = useSubmit(['email', 'password'], async () => {
    signedIn(await call(api.POST('/auth/v1/sessions', { body: { email, password } })));
    void navigate(from === '/sign-in' ? '/' : from, { replace: true });
  });
  return (
    <PublicFrame title="Sign in">
      <form onSubmit={submit} noValidate>
        <FormError errors={errors} />
        <Field label="E-mail" name="email" type="email" autoComplete="email" required value={email} onChange={setEmail} errors={errors} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
          errors={errors}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        New here? <Link to="/sign-up">Create an account</Link>. <Link to="/password-reset">Forgot your password?</Link>
      </p>
    </PublicFrame>
  );
}
