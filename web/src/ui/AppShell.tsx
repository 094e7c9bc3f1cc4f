import { type ReactNode, Suspense, useState } from 'react';
import { NavLink, Outlet } from 'react-router-dom';
import { Loading } from './states';

export interface ShellSection {
  to: string;
  label: string;
  /** What waits in the section (a queue's length), shown beside its name when above zero. */
  count?: number;
}

/**
 * The signed-in frame both applications share: a skip link, the sections as plain links (so the
 * keyboard walks them), the account corner (who is signed in, sign-out) and the page, with a
 * `notice` above it when the whole app has something to say (the portal's expired session, the
 * admin's read-only key); `children` stand in for the route's page while the frame is not ready for it. On a
 * narrow screen the sections fold behind a Menu button (styles.css), which a choice folds again.
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
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">{brand}</span>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="sections-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="sections-nav" aria-label="Sections" className={menuOpen ? 'open' : undefined}>
          <ul>
            {sections.map((section) => (
              <li key={section.to}>
                <NavLink to={section.to} onClick={() => setMenuOpen(false)}>
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
        {notice}
        {/* A section's code loads when first opened (lazy routes): the frame stays meanwhile. */}
        {children ?? (
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}
