import { Navigate, Route, Routes } from 'react-router-dom';
import { AffiliateDetail } from './affiliates/AffiliateDetail';
import { ApiKeysSection } from './api-keys/ApiKeysSection';
import { AffiliateList } from './affiliates/AffiliateList';
import { ApplicationQueue } from './applications/ApplicationQueue';
import { AudienceCreate } from './audiences/AudienceCreate';
import { AudienceDetail } from './audiences/AudienceDetail';
import { AudienceList } from './audiences/AudienceList';
import { AdminKeyOnly } from './key-role';
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
        <Route index element={<Navigate to="audiences" replace />} />
        <Route path="audiences" element={<AudienceList />} />
        <Route
          path="audiences/new"
          element={
            <AdminKeyOnly what="Creating an audience">
              <AudienceCreate />
            </AdminKeyOnly>
          }
        />
        <Route path="audiences/:audienceId" element={<AudienceDetail />} />
        <Route path="affiliates" element={<AffiliateList />} />
        <Route path="affiliates/:identifierType/:identifier" element={<AffiliateDetail />} />
        <Route path="applications" element={<ApplicationQueue />} />
        <Route
          path="masters/*"
          element={
            <AdminKeyOnly what="The master affiliates section">
              <MastersSection />
            </AdminKeyOnly>
          }
        />
        <Route path="program" element={<ProgramSettingsPage />} />
        <Route
          path="tax/*"
          element={
            <AdminKeyOnly what="The tax section">
              <TaxSection />
            </AdminKeyOnly>
          }
        />
        <Route path="payouts/*" element={<PayoutsSection />} />
        <Route
          path="review/*"
          element={
            <AdminKeyOnly what="The review section">
              <ReviewSection />
            </AdminKeyOnly>
          }
        />
        <Route path="webhooks/*" element={<WebhooksSection />} />
        <Route
          path="api-keys/*"
          element={
            <AdminKeyOnly what="The API keys section">
              <ApiKeysSection />
            </AdminKeyOnly>
          }
        />
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
