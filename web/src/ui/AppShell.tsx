import type { ReactNode } from 'react';
import { NavLink, Outlet } from 'react-router-dom';

export interface ShellSection {
  to: string;
  label: string;
}

/**
 * The signed-in frame both applications share: a skip link, the sections as plain links (so the
 * keyboard walks them), the account corner (who is signed in, sign-out) and the page, with a
 * `notice` above it when the whole app has something to say (the portal's expired session, the
 * admin's read-only key); `children` stand in for the route's page while the frame is not ready for it.
 */
export function AppShell({
  brand,
  sections,
  account,
  notice,
  children,
}: {
  brand: string;
  sections: readonly ShellSection[];
  account: ReactNode;
  notice?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">{brand}</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map((section) => (
              <li key={section.to}>
                <NavLink to={section.to}>{section.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">{account}</div>
      </header>
      <main id="main" tabIndex={-1}>
        {notice}
        {children ?? <Outlet />}
      </main>
    </div>
  );
}
