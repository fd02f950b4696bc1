import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { api, call, type Schemas, useTenantHeader, whenSessionEnds } from '../api/client';

export type Account = Schemas['AccountResponse'];
export type Membership = Schemas['MembershipResponse'];
export type Role = Schemas['Role'];
/** What a member may do: a scope of the tenant API, or a capability of users only (managing the tenant, owners). */
export type Permission = Schemas['Scope'] | Schemas['Capability'];

interface SessionState {
  status: 'loading' | 'signedOut' | 'signedIn';
  account?: Account;
  /** The membership whose tenant the dashboard shows. */
  membership?: Membership;
  chooseTenant(tenantId: string): void;
  /** After sign-in, sign-up or accepting an invitation: the answer carries the account. */
  signedIn(account: Account): void;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);
const TENANT_KEY = 'dashboard.tenantId';
/** Whether this browser has signed in: without it, the sign-in form shows without asking the API. */
const SIGNED_IN_KEY = 'dashboard.signedIn';

function pickMembership(account: Account | undefined, wanted: string | null): Membership | undefined {
  return account?.memberships.find((membership) => membership.tenant.id === wanted) ?? account?.memberships[0];
}

/** Who is signed in and which tenant they act for; the API client follows the chosen tenant. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<SessionState['status']>(() => (localStorage.getItem(SIGNED_IN_KEY) ? 'loading' : 'signedOut'));
  const [account, setAccount] = useState<Account>();
  const [tenantId, setTenantId] = useState<string | null>(() => localStorage.getItem(TENANT_KEY));

  const signedIn = useCallback((next: Account) => {
    localStorage.setItem(SIGNED_IN_KEY, '1');
    setAccount(next);
    setStatus('signedIn');
  }, []);
  const forget = useCallback(() => {
    localStorage.removeItem(SIGNED_IN_KEY);
    setAccount(undefined);
    setStatus('signedOut');
  }, []);
  const refresh = useCallback(async () => {
    try {
      signedIn(await call(api.GET('/auth/v1/me')));
    } catch {
      forget();
    }
  }, [signedIn, forget]);

  // Once, at start (signedIn and forget never change): later changes go through them and refresh.
  useEffect(() => {
    whenSessionEnds(forget);
    if (!localStorage.getItem(SIGNED_IN_KEY)) return;
    let current = true;
    call(api.GET('/auth/v1/me')).then(
      (answer) => current && signedIn(answer),
      () => current && forget(),
    );
    return () => {
      current = false;
    };
  }, [signedIn, forget]);

  const membership = pickMembership(account, tenantId);
  useTenantHeader(membership?.tenant.id ?? null);

  const value = useMemo<SessionState>(
    () => ({
      status,
      account,
      membership,
      chooseTenant(id) {
        localStorage.setItem(TENANT_KEY, id);
        setTenantId(id);
      },
      signedIn,
      refresh,
      async signOut() {
        await call(api.DELETE('/auth/v1/sessions/current')).catch(() => undefined);
        forget();
      },
    }),
    [status, account, membership, signedIn, refresh, forget],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

interface Tenant {
  tenantId: string;
  name: string;
  plan: Membership['tenant']['plan'];
  paidPlan: boolean;
  /** Whether the user's role allows this here, as the server says (the membership's scopes and capabilities). */
  can(permission: Permission): boolean;
  /** The roles the user may give, and whose holders it may change or remove (the server's list). */
  assignableRoles: readonly Role[];
}

/**
 * The chosen tenant and what the user may do in it (pages under the signed-in layout only). Pages
 * ask `can`, never the role's name: what a role allows is the server's to say.
 * `paidPlan`: the plan grants what Free does not (creating webhook endpoints, importing leads), so
 * pages disable those controls on Free and say why, rather than answer with an error after a click.
 */
export function useTenant(): Tenant {
  const { membership } = useSession();
  if (!membership) throw new Error('useTenant without a tenant');
  const { tenant, scopes, capabilities, assignableRoles } = membership;
  const can = (permission: Permission) =>
    (scopes as readonly Permission[]).includes(permission) || (capabilities as readonly Permission[]).includes(permission);
  return { tenantId: tenant.id, name: tenant.name, plan: tenant.plan, paidPlan: tenant.plan !== 'free', can, assignableRoles };
}
