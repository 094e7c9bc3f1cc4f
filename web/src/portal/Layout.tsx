import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useParams } from 'react-router-dom';
import { AppShell } from '../ui/AppShell';
import { shortIdentifier } from '../ui/format';
import { PORTAL_APP_NAME, PORTAL_SECTIONS, portalDocumentTitle, portalScreenTitle } from './page-title';
import { SessionExpired } from './SessionExpired';
import { usePortal, usePortalSession } from './session';

/** The portal's frame: its sections, the signed-in wallet, sign-out (which forgets every cached answer) and signing in again once the session expired. */
export function PortalLayout() {
  const { signOut } = usePortalSession();
  const { address, projectId } = usePortal();
  const queryClient = useQueryClient();
  const screen = useParams()['*'] ?? '';
  useEffect(() => {
    document.title = portalDocumentTitle(portalScreenTitle(screen));
  }, [screen]);
  return (
    <AppShell
      brand={PORTAL_APP_NAME}
      sections={PORTAL_SECTIONS.map((section) => ({ to: `/portal/${projectId}/${section.to}`, label: section.label }))}
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
