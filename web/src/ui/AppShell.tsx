import type { ReactNode } from 'react';
import { NavLink, Outlet } from 'react-router-dom';

export interface ShellSection {
  to: string;
  label: string;
  /** What waits in the section (a queue's length), shown beside its name when above zero. */
  count?: number;
}

/**
 * The signed-in frame both applications share: a skip link, the sections as plain links (so the
 * keyboard walks them), the account corner (who is signed in, sign-out) and the page.
 */
export function AppShell({ brand, sections, account }: { brand: string; sections: readonly ShellSection[]; account: ReactNode }) {
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
                <NavLink to={section.to}>
                  {section.label}
                  {section.count ? (
                    <>
                      {' '}
                      <span className="nav-count">
                        {section.count.toLocaleString('en-US')}
                        <span className="visually-hidden"> waiting</span>
                      </span>
                    </>
                  ) : null}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">{account}</div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
