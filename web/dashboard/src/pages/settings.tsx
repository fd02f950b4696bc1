import { PageTitle } from '../components/states';
import { IdentityVerificationSection } from './settings/identity-verification';

/** The tenant's own settings (the bots' settings are on each bot's page). */
export default function SettingsPage() {
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <IdentityVerificationSection />
    </>
  );
}
