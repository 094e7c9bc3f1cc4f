import { AppShell } from '../ui/AppShell';
import { ErrorMessage, Loading } from '../ui/states';
import { READ_ONLY_NOTICE, useCurrentKey } from './key-role';
import { useAdminSession } from './session';

/** adminOnly: a section whose reads need an admin key (the API answers a read-only key 403 there). */
const SECTIONS = [
  { to: 'audiences', label: 'Audiences' },
  { to: 'affiliates', label: 'Affiliates' },
  { to: 'applications', label: 'Applications' },
  { to: 'masters', label: 'Master affiliates', adminOnly: true },
  { to: 'program', label: 'Program' },
  { to: 'tax', label: 'Tax', adminOnly: true },
  { to: 'payouts', label: 'Payouts' },
  { to: 'review', label: 'Review', adminOnly: true },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'api-keys', label: 'API keys', adminOnly: true },
];

/** The admin dashboard's frame: its sections (those the key can read), the signed-in project and key, and the page once the key's role is known. */
export function AdminLayout() {
  const { credentials, signOut } = useAdminSession();
  const key = useCurrentKey();
  const readOnly = key.data?.role === 'read_only';
  // The pages wait for the key's role, so none offers a change the key cannot make, even for a moment.
  const waiting = key.isPending ? (
    <Loading label="Reading what the key may do…" />
  ) : key.isError ? (
    <ErrorMessage error={key.error} title="Could not read the signed-in key" onRetry={() => void key.refetch()} />
  ) : undefined;
  return (
    <AppShell
      brand="Referral admin"
      sections={readOnly ? SECTIONS.filter((section) => !section.adminOnly) : SECTIONS}
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
      notice={
        readOnly ? (
          <p className="state read-only-notice" id="read-only-reason">
            <strong>{READ_ONLY_NOTICE}</strong> Signed in with “{key.data?.name}” ({key.data?.key_prefix}…), a read_only key: every page it can read
            is here, without the buttons that would change something.
          </p>
        ) : null
      }
    >
      {waiting}
    </AppShell>
  );
}
