import { Navigate, Route, Routes, useParams } from 'react-router-dom';
import { PortalLayout } from './Layout';
import { PortalSessionProvider, ProjectContext, usePortalSession } from './session';
import { SignIn } from './SignIn';
import { lazyPage } from '../ui/lazy-page';

// Each page is a chunk of its own (the stats chart and the wallet's transaction code are large), loaded when first opened.
const ApplyPage = lazyPage(() => import('./apply/ApplyPage'), 'ApplyPage');
const ClaimsPage = lazyPage(() => import('./claims/ClaimsPage'), 'ClaimsPage');
const CodesPage = lazyPage(() => import('./codes/CodesPage'), 'CodesPage');
const StatsPage = lazyPage(() => import('./stats/StatsPage'), 'StatsPage');
const TaxPage = lazyPage(() => import('./tax/TaxPage'), 'TaxPage');

/** One project's portal: its id is in the address (/app/portal/<projectId>/…), as a program links its affiliates to it. */
function ProjectPortal() {
  const { projectId } = useParams();
  const { session } = usePortalSession();
  if (!session) return <SignIn />;
  return (
    <ProjectContext.Provider value={projectId ?? null}>
      <Routes>
        <Route element={<PortalLayout />}>
          <Route index element={<Navigate to="apply" replace />} />
          <Route path="apply" element={<ApplyPage />} />
          <Route path="codes" element={<CodesPage />} />
          <Route path="stats" element={<StatsPage />} />
          <Route path="tax" element={<TaxPage />} />
          <Route path="claims" element={<ClaimsPage />} />
          <Route path="*" element={<p>There is no such page.</p>} />
        </Route>
      </Routes>
    </ProjectContext.Provider>
  );
}

/** The affiliate portal, under /app/portal/<projectId>. */
export function PortalApp() {
  return (
    <PortalSessionProvider>
      <Routes>
        <Route path=":projectId/*" element={<ProjectPortal />} />
        <Route
          path="*"
          element={
            <main id="main" className="sign-in">
              <h1>Affiliate portal</h1>
              <p>Open the portal from your program’s link: it names the program (/app/portal/&lt;program id&gt;).</p>
            </main>
          }
        />
      </Routes>
    </PortalSessionProvider>
  );
}
