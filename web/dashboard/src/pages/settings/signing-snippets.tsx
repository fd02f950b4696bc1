import { useId, useState } from 'react';
import { CopyButton } from '../../components/copy-button';

/**
 * How the tenant's back end signs a visitor's identity token (HS256, `sub` its user's id, `exp` at
 * most 24 hours after `iat`), in the languages most sites' back ends speak, each with the library
 * that does the signing; the secret stays on the server, read from the environment.
 */
const SIGNERS = {
  node: {
    label: 'Node.js (jose)',
    code: `// npm install jose
import { SignJWT } from 'jose';

const secret = new TextEncoder().encode(process.env.IDENTITY_SECRET);
const identityToken = await new SignJWT({ email: user.email, name: user.name })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject(String(user.id))
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(secret);`,
  },
  python: {
    label: 'Python (PyJWT)',
    code: `# pip install PyJWT
import os, time, jwt

now = int(time.time())
identity_token = jwt.encode(
    {"sub": str(user.id), "iat": now, "exp": now + 3600, "email": user.email, "name": user.name},
    os.environ["IDENTITY_SECRET"],
    algorithm="HS256",
)`,
  },
  php: {
    label: 'PHP (firebase/php-jwt)',
    code: `// composer require firebase/php-jwt
use Firebase\\JWT\\JWT;

$now = time();
$identityToken = JWT::encode(
    ['sub' => (string) $user->id, 'iat' => $now, 'exp' => $now + 3600, 'email' => $user->email, 'name' => $user->name],
    getenv('IDENTITY_SECRET'),
    'HS256'
);`,
  },
} as const;

type Language = keyof typeof SIGNERS;

/** The embed line with the token, and the call for a page whose user signs in after it loaded. */
function embedWithToken(origin: string): string {
  return `<script src="${origin}/widget.js" data-bot-id="YOUR_BOT_ID" data-key="YOUR_PUBLIC_KEY"
        data-identity-token="IDENTITY_TOKEN_FROM_YOUR_SERVER" async></script>

<script>
  // After your user signs in without a page load:
  window.ChatbotWidget.identify(identityTokenFromYourServer);
</script>`;
}

/** The signing code in the language the reader picks, and the embed code that hands the token to the widget. */
export function SigningSnippets() {
  const [language, setLanguage] = useState<Language>('node');
  const picker = useId();
  const embed = embedWithToken(window.location.origin);
  return (
    <div className="signing">
      <h3>Sign a token on your server</h3>
      <p className="hint">
        For each signed-in user, sign a token with the secret: <code>sub</code> is your user&apos;s id, <code>exp</code> at most 24 hours after <code>iat</code>
        ; <code>email</code> and <code>name</code> are optional and show in the inbox.
      </p>
      <div className="field">
        <label htmlFor={picker}>Language</label>
        <select id={picker} value={language} onChange={(event) => setLanguage(event.target.value as Language)}>
          {(Object.keys(SIGNERS) as Language[]).map((each) => (
            <option key={each} value={each}>
              {SIGNERS[each].label}
            </option>
          ))}
        </select>
      </div>
      <pre className="snippet" tabIndex={0} aria-label={`Signing code, ${SIGNERS[language].label}`}>
        <code data-testid="signing-snippet">{SIGNERS[language].code}</code>
      </pre>
      <CopyButton text={SIGNERS[language].code} label="Copy signing code" />
      <h3>Give the token to the widget</h3>
      <p className="hint">Put the token in the embed code of pages your user sees signed in, or hand it over once they sign in.</p>
      <pre className="snippet" tabIndex={0} aria-label="Embed code with the identity token">
        <code data-testid="identity-embed">{embed}</code>
      </pre>
      <CopyButton text={embed} label="Copy embed code" />
    </div>
  );
}
