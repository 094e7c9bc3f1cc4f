import { AppShell } from '../ui/AppShell';
import { useAdminSession } from './session';

const SECTIONS = [
  { to: 'audiences', label: 'Audiences' },
  { to: 'affiliates', label: 'Affiliates' },
  { to: 'applications', label: 'Applications' },
  { to: 'masters', label: 'Master affiliates' },
  { to: 'program', label: 'Program' },
  { to: 'tax', label: 'Tax' },
  { to: 'payouts', label: 'Payouts' },
  { to: 'review', label: 'Review' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'api-keys', label: 'API keys' },
];

/** The admin dashboard's frame: its sections and the signed-in project. */
export function AdminLayout() {
  const { credentials, signOut } = useAdminSession();
  return (
    <AppShell
      brand="Referral admin"
      sections={SECTIONS}
      account={
        <>
          <span className="project" title={credentials?.projectId}>
            Project {credentials?.projectId.slice(0, 8)}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </>
      }
    />
  );
}
