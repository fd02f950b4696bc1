import { useId, useState } from 'react';
import { api, call } from '../../api/client';
import { useResource } from '../../api/use-resource';
import { ConfirmButton } from '../../components/confirm-button';
import { ShownOnce } from '../../components/shown-once';
import { Loaded } from '../../components/states';
import { FormError } from '../../forms/fields';
import { useSubmit } from '../../forms/use-submit';
import { useTenant } from '../../session/session-context';
import { SigningSnippets } from './signing-snippets';

/**
 * Known visitors: the tenant's identity secret (created, rotated, removed; shown once), the switch
 * that requires a verified visitor, and how a site signs the token its widget passes on. Owners and
 * admins manage it (`tenant:manage`); others read why they cannot.
 */
export function IdentityVerificationSection() {
  const { can } = useTenant();
  return (
    <section className="card" aria-labelledby="identity-title">
      <h2 id="identity-title">Identity verification</h2>
      <p>
        Your site&apos;s back end vouches for its signed-in users with a token signed by a secret only it and this service know: the widget then knows who is
        chatting, the same person on every device, and the inbox marks them as verified.
      </p>
      {can('tenant:manage') ? (
        <ManagedIdentity />
      ) : (
        <p className="hint">
          Your role does not manage identity verification: an owner or admin of this tenant creates the secret and decides whether it is required.
        </p>
      )}
    </section>
  );
}

function ManagedIdentity() {
  const { can } = useTenant();
  const settings = useResource(() => call(api.GET('/api/v1/settings')), []);
  const [created, setCreated] = useState<string>();
  const [confirming, setConfirming] = useState<'rotate' | 'remove'>();
  const secret = useSubmit([], async () => {
    const answer = await call(api.POST('/api/v1/identity-secret'));
    setConfirming(undefined);
    setCreated(answer.secret);
    await settings.reload();
  });
  const removal = useSubmit([], async () => {
    await call(api.DELETE('/api/v1/identity-secret'));
    setConfirming(undefined);
    setCreated(undefined);
    await settings.reload();
  });
  return (
    <Loaded resource={settings}>
      {({ settings: { identityVerification } }) => (
        <>
          <p data-testid="identity-state">
            {identityVerification.configured ? 'A secret is set: tokens signed with it identify visitors.' : 'No secret yet: every visitor chats anonymously.'}
          </p>
          {created && (
            <ShownOnce
              title="Your new secret"
              level={3}
              className="secret-once"
              value={created}
              valueLabel="Identity secret"
              testId="identity-secret"
              copyLabel="Copy secret"
              focus
              onDone={() => setCreated(undefined)}
            >
              <p>
                <strong>Copy it now: you will not see it again.</strong> Keep it on your server (for example in <code>IDENTITY_SECRET</code>), never in a page.
              </p>
            </ShownOnce>
          )}
          <FormError errors={secret.errors} />
          <FormError errors={removal.errors} />
          {confirming === 'rotate' ? (
            <div role="group" aria-label="Rotate the secret?" className="actions">
              <p>Tokens signed with the current secret stop working at once: visitors who carry one chat anonymously until your site signs with the new one.</p>
              <ConfirmButton disabled={secret.busy} onClick={() => void secret.submit()}>
                Yes, rotate secret
              </ConfirmButton>
              <button type="button" className="secondary" onClick={() => setConfirming(undefined)}>
                Keep the current secret
              </button>
            </div>
          ) : confirming === 'remove' ? (
            <div role="group" aria-label="Remove the secret?" className="actions">
              <p>Tokens stop working at once, visitors chat anonymously, and requiring verification turns off.</p>
              <ConfirmButton disabled={removal.busy} onClick={() => void removal.submit()}>
                Yes, remove secret
              </ConfirmButton>
              <button type="button" className="secondary" onClick={() => setConfirming(undefined)}>
                Keep the secret
              </button>
            </div>
          ) : identityVerification.configured ? (
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setConfirming('rotate')}>
                Rotate secret
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming('remove')}>
                Remove secret
              </button>
            </div>
          ) : (
            <button type="button" disabled={secret.busy} onClick={() => void secret.submit()}>
              Create secret
            </button>
          )}
          <RequiredSwitch
            configured={identityVerification.configured}
            required={identityVerification.required}
            mayChange={can('settings:write')}
            onChanged={settings.reload}
          />
          <SigningSnippets />
        </>
      )}
    </Loaded>
  );
}

/** Whether the widget refuses a visitor without a valid token: only with a secret to check tokens against. */
function RequiredSwitch({
  configured,
  required,
  mayChange,
  onChanged,
}: {
  configured: boolean;
  required: boolean;
  mayChange: boolean;
  onChanged: () => Promise<void>;
}) {
  const id = useId();
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.PATCH('/api/v1/settings', { body: { identityVerification: { required: !required } } }));
    await onChanged();
  });
  const reason = !configured
    ? 'Create a secret first: without one no visitor could be verified.'
    : !mayChange
      ? 'Your role does not change the tenant’s settings.'
      : required
        ? 'On: a visitor without a valid token cannot chat; the widget says chat is unavailable until your page signs them in.'
        : 'Off: visitors without a token chat anonymously, as before.';
  return (
    <div className="identity-required">
      <div className="check">
        <input
          id={id}
          type="checkbox"
          role="switch"
          checked={required}
          disabled={!configured || !mayChange || busy}
          aria-describedby={`${id}-hint`}
          onChange={() => void submit()}
        />
        <label htmlFor={id}>Require verified visitors</label>
      </div>
      <p className="hint" id={`${id}-hint`}>
        {reason}
      </p>
      <FormError errors={errors} />
    </div>
  );
}
