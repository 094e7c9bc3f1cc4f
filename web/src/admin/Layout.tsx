import { NavLink, Outlet } from 'react-router-dom';
import { useAdminSession } from './session';

const SECTIONS = [
  { to: 'audiences', label: 'Audiences' },
  { to: 'affiliates', label: 'Affiliates' },
  { to: 'applications', label: 'Applications' },
];

/** The signed-in frame: a skip link, the navigation (plain links, so the keyboard walks it) and the page. */
export function AdminLayout() {
  const { credentials, signOut } = useAdminSession();
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Referral admin</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <NavLink to={section.to}>{section.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="project" title={credentials?.projectId}>
            Project {credentials?.projectId.slice(0, 8)}
          </span>
          <button
            type="button"
            onClick={signOut}
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
