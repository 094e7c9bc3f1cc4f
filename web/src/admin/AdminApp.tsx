import { Navigate, Route, Routes } from 'react-router-dom';
import { AffiliateDetail } from './affiliates/AffiliateDetail';
import { AffiliateList } from './affiliates/AffiliateList';
import { ApplicationQueue } from './applications/ApplicationQueue';
import { AudienceCreate } from './audiences/AudienceCreate';
import { AudienceDetail } from './audiences/AudienceDetail';
import { AudienceList } from './audiences/AudienceList';
import { AdminLayout } from './Layout';
import { AdminSessionProvider, useAdminSession } from './session';
import { SignIn } from './SignIn';

function SignedInRoutes() {
  const { credentials } = useAdminSession();
  if (!credentials) return <SignIn />;
  return (
    <Routes>
      <Route path="admin" element={<AdminLayout />}>
        <Route index element={<Navigate to="audiences" replace />} />
        <Route path="audiences" element={<AudienceList />} />
        <Route path="audiences/new" element={<AudienceCreate />} />
        <Route path="audiences/:audienceId" element={<AudienceDetail />} />
        <Route path="affiliates" element={<AffiliateList />} />
        <Route path="affiliates/:identifierType/:identifier" element={<AffiliateDetail />} />
        <Route path="applications" element={<ApplicationQueue />} />
        <Route path="*" element={<p>There is no such page.</p>} />
      </Route>
      <Route path="*" element={<Navigate to="/admin/audiences" replace />} />
    </Routes>
  );
}

/** The admin dashboard, under /app/admin. */
export function AdminApp() {
  return (
    <AdminSessionProvider>
      <SignedInRoutes />
    </AdminSessionProvider>
  );
}
