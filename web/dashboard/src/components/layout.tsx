import { type ReactNode, Suspense, useEffect, useId, useRef } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router-dom';
import { useSession } from '../session/session-context';

const LINKS: [string, string][] = [
  ['/', 'Overview'],
  ['/bots', 'Bots'],
  ['/api-keys', 'API keys'],
  ['/webhooks', 'Webhooks'],
  ['/leads', 'Leads'],
  ['/conversations', 'Conversations'],
  ['/inbox', 'Inbox'],
  ['/members', 'Members'],
  ['/audit-log', 'Audit log'],
  ['/settings', 'Settings'],
  ['/account', 'Account'],
];

/** The signed-in frame: skip link, tenant switcher, navigation, sign-out; focus moves to each new page's heading. */
export function Layout({ children }: { children?: ReactNode }) {
  const { account, membership, chooseTenant, signOut } = useSession();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const switcher = useId();
  useEffect(() => {
    const heading = main.current?.querySelector<HTMLElement>('h1');
    if (heading && document.activeElement !== document.body) heading.focus();
  }, [location.pathname]);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Chatbot Platform</span>
        {account && account.memberships.length > 0 && (
          <div className="tenant">
            <label htmlFor={switcher}>Tenant</label>
            <select id={switcher} value={membership?.tenant.id} onChange={(event) => chooseTenant(event.target.value)}>
              {account.memberships.map((each) => (
                <option key={each.tenant.id} value={each.tenant.id}>
                  {each.tenant.name} ({each.role})
                </option>
              ))}
            </select>
          </div>
        )}
        <span className="who">{account?.user.email}</span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main">
        <ul>
          {LINKS.map(([to, label]) => (
            <li key={to}>
              <NavLink to={to} end={to === '/'}>
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <Suspense
          fallback={
            <p role="status" className="loading">
              Loading…
            </p>
          }
        >
          {children ?? <Outlet key={membership?.tenant.id} />}
        </Suspense>
      </main>
    </div>
  );
}
