import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { Layout } from './components/layout';
import { useSession } from './session/session-context';
import { SignInPage } from './pages/sign-in';

// Pages load on first visit: the first load carries the shell and the sign-in form only.
const SignUpPage = lazy(() => import('./pages/sign-up'));
const PasswordResetPage = lazy(() => import('./pages/password-reset'));
const AcceptInvitationPage = lazy(() => import('./pages/accept-invitation'));
const OverviewPage = lazy(() => import('./pages/overview'));
const BotsPage = lazy(() => import('./pages/bots'));
const BotPage = lazy(() => import('./pages/bot'));
const ApiKeysPage = lazy(() => import('./pages/api-keys'));
const WebhooksPage = lazy(() => import('./pages/webhooks'));
const LeadsPage = lazy(() => import('./pages/leads'));
const ConversationsPage = lazy(() => import('./pages/conversations'));
const InboxPage = lazy(() => import('./pages/inbox'));
const MembersPage = lazy(() => import('./pages/members'));
const AuditLogPage = lazy(() => import('./pages/audit-log'));
const SettingsPage = lazy(() => import('./pages/settings'));
const AccountPage = lazy(() => import('./pages/account'));

const loading = (
  <p role="status" className="loading">
    Loading…
  </p>
);

export function App() {
  const { status, membership } = useSession();
  const location = useLocation();
  return (
    <Suspense fallback={loading}>
      <Routes>
        <Route path="/sign-up" element={status === 'signedIn' ? <Navigate to="/" replace /> : <SignUpPage />} />
        <Route path="/password-reset" element={<PasswordResetPage />} />
        <Route path="/invitations/accept" element={<AcceptInvitationPage />} />
        {status === 'loading' ? (
          <Route path="*" element={loading} />
        ) : status === 'signedOut' ? (
          <Route path="*" element={<SignInPage from={location.pathname} />} />
        ) : !membership ? (
          <Route
            path="*"
            element={
              <Layout>
                <p>You are not a member of any tenant yet. Ask an owner to invite you.</p>
              </Layout>
            }
          />
        ) : (
          <Route element={<Layout />}>
            <Route index element={<OverviewPage />} />
            <Route path="bots" element={<BotsPage />} />
            <Route path="bots/:botId" element={<BotPage />} />
            <Route path="api-keys" element={<ApiKeysPage />} />
            <Route path="webhooks" element={<WebhooksPage />} />
            <Route path="leads" element={<LeadsPage />} />
            <Route path="conversations" element={<ConversationsPage />} />
            <Route path="conversations/:conversationId" element={<ConversationsPage />} />
            <Route path="inbox" element={<InboxPage />} />
            <Route path="inbox/:conversationId" element={<InboxPage />} />
            <Route path="members" element={<MembersPage />} />
            <Route path="audit-log" element={<AuditLogPage />} />
            <Route path="settings" element={<SettingsPage />} />
            <Route path="account" element={<AccountPage />} />
            <Route path="sign-in" element={<Navigate to="/" replace />} />
            <Route
              path="*"
              element={
                <p>
                  There is no page here. <a href="/dashboard/">Go to the overview</a>.
                </p>
              }
            />
          </Route>
        )}
      </Routes>
    </Suspense>
  );
}
