import { Navigate, Route, Routes } from 'react-router-dom';
import { AffiliateDetail } from './affiliates/AffiliateDetail';
import { ApiKeysSection } from './api-keys/ApiKeysSection';
import { AffiliateList } from './affiliates/AffiliateList';
import { ApplicationQueue } from './applications/ApplicationQueue';
import { AudienceCreate } from './audiences/AudienceCreate';
import { AudienceDetail } from './audiences/AudienceDetail';
import { AudienceList } from './audiences/AudienceList';
import { HomePage } from './home/HomePage';
import { AdminLayout } from './Layout';
import { MastersSection } from './masters/MastersSection';
import { PayoutsSection } from './payouts/PayoutsSection';
import { ProgramSettingsPage } from './program/ProgramSettingsPage';
import { ReviewSection } from './review/ReviewSection';
import { AdminSessionProvider, useAdminSession } from './session';
import { SignIn } from './SignIn';
import { TaxSection } from './tax/TaxSection';
import { WebhooksSection } from './webhooks/WebhooksSection';

function SignedInRoutes() {
  const { credentials } = useAdminSession();
  if (!credentials) return <SignIn />;
  return (
    <Routes>
      <Route path="admin" element={<AdminLayout />}>
        <Route index element={<Navigate to="home" replace />} />
        <Route path="home" element={<HomePage />} />
        <Route path="audiences" element={<AudienceList />} />
        <Route path="audiences/new" element={<AudienceCreate />} />
        <Route path="audiences/:audienceId" element={<AudienceDetail />} />
        <Route path="affiliates" element={<AffiliateList />} />
        <Route path="affiliates/:identifierType/:identifier" element={<AffiliateDetail />} />
        <Route path="applications" element={<ApplicationQueue />} />
        <Route path="masters/*" element={<MastersSection />} />
        <Route path="program" element={<ProgramSettingsPage />} />
        <Route path="tax/*" element={<TaxSection />} />
        <Route path="payouts/*" element={<PayoutsSection />} />
        <Route path="review/*" element={<ReviewSection />} />
        <Route path="webhooks/*" element={<WebhooksSection />} />
        <Route path="api-keys/*" element={<ApiKeysSection />} />
        <Route path="*" element={<p>There is no such page.</p>} />
      </Route>
      <Route path="*" element={<Navigate to="/admin/home" replace />} />
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
