import { useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router-dom';
import { shortIdentifier } from '../ui/format';
import { usePortal, usePortalSession } from './session';

const SECTIONS = [
  { to: 'apply', label: 'Membership' },
  { to: 'codes', label: 'Referral codes' },
  { to: 'stats', label: 'Stats' },
  { to: 'tax', label: 'Tax' },
  { to: 'claims', label: 'Claims' },
];

/** The signed-in frame of the portal: a skip link, the sections (plain links, so the keyboard walks them), the wallet and sign-out. */
export function PortalLayout() {
  const { signOut } = usePortalSession();
  const { address, projectId } = usePortal();
  const queryClient = useQueryClient();
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Affiliate portal</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <NavLink to={`/portal/${projectId}/${section.to}`}>{section.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
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
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
