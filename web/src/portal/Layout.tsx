import { useQueryClient } from '@tanstack/react-query';
import { AppShell } from '../ui/AppShell';
import { shortIdentifier } from '../ui/format';
import { SessionExpired } from './SessionExpired';
import { usePortal, usePortalSession } from './session';

const SECTIONS = [
  { to: 'apply', label: 'Membership' },
  { to: 'codes', label: 'Referral codes' },
  { to: 'stats', label: 'Stats' },
  { to: 'tax', label: 'Tax' },
  { to: 'claims', label: 'Claims' },
];

/** The portal's frame: its sections, the signed-in wallet, sign-out (which forgets every cached answer) and signing in again once the session expired. */
export function PortalLayout() {
  const { signOut } = usePortalSession();
  const { address, projectId } = usePortal();
  const queryClient = useQueryClient();
  return (
    <AppShell
      brand="Affiliate portal"
      sections={SECTIONS.map((section) => ({ to: `/portal/${projectId}/${section.to}`, label: section.label }))}
      notice={<SessionExpired address={address} />}
      account={
        <>
          <span className="project identifier" title={address} data-testid="wallet-address">
            {shortIdentifier(address)}
          </span>
          <button
            type="button"
            onClick={() => {
              queryClient.clear();
              signOut();
            }}
          >
            Sign out
          </button>
        </>
      }
    />
  );
}
