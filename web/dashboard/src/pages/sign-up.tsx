import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, call } from '../api/client';
import { PublicFrame } from '../components/public-frame';
import { Field, FormError } from '../forms/fields';
import { PASSWORD_HINT } from '../forms/password-hint';
import { useSubmit } from '../forms/use-submit';
import { useSession } from '../session/session-context';

export default function SignUpPage() {
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const [form, setForm] = useState({ name: '', email: '', password: '', tenantName: '' });
  const set = (field: keyof typeof form) => (value: string) => setForm((current) => ({ ...current, [field]: value }));
  const { submit, busy, errors } = useSubmit(Object.keys(form), async () => {
    signedIn(await call(api.POST('/auth/v1/signup', { body: form })));
    void navigate('/', { replace: true });
  });
  return (
    <PublicFrame title="Create your account">
      <form onSubmit={submit} noValidate>
        <FormError errors={errors} />
        <Field label="Your name" name="name" autoComplete="name" required value={form.name} onChange={set('name')} errors={errors} />
        <Field label="E-mail" name="email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} errors={errors} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint={PASSWORD_HINT}
          value={form.password}
          onChange={set('password')}
          errors={errors}
        />
        <Field
          label="Company or team name"
          name="tenantName"
          required
          hint="Your workspace; you can rename it later."
          value={form.tenantName}
          onChange={set('tenantName')}
          errors={errors}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/">Sign in</Link>.
      </p>
    </PublicFrame>
  );
}
