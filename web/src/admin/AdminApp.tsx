import { Navigate, Route, Routes } from 'react-router-dom';
import { AdminKeyOnly, useCurrentKey } from './key-role';
import { AdminLayout } from './Layout';
import { AdminSessionProvider, useAdminSession } from './session';
import { SignIn } from './SignIn';
import { lazyPage } from '../ui/lazy-page';

// Each section is a chunk of its own, loaded when first opened.
const HomePage = lazyPage(() => import('./home/HomePage'), 'HomePage');
const AffiliateCreate = lazyPage(() => import('./affiliates/AffiliateCreate'), 'AffiliateCreate');
const AffiliateDetail = lazyPage(() => import('./affiliates/AffiliateDetail'), 'AffiliateDetail');
const ApiKeysSection = lazyPage(() => import('./api-keys/ApiKeysSection'), 'ApiKeysSection');
const AffiliateList = lazyPage(() => import('./affiliates/AffiliateList'), 'AffiliateList');
const ApplicationQueue = lazyPage(() => import('./applications/ApplicationQueue'), 'ApplicationQueue');
const AudienceCreate = lazyPage(() => import('./audiences/AudienceCreate'), 'AudienceCreate');
const AudienceDetail = lazyPage(() => import('./audiences/AudienceDetail'), 'AudienceDetail');
const AudienceList = lazyPage(() => import('./audiences/AudienceList'), 'AudienceList');
const MastersSection = lazyPage(() => import('./masters/MastersSection'), 'MastersSection');
const PayoutsSection = lazyPage(() => import('./payouts/PayoutsSection'), 'PayoutsSection');
const ProgramSettingsPage = lazyPage(() => import('./program/ProgramSettingsPage'), 'ProgramSettingsPage');
const ReviewSection = lazyPage(() => import('./review/ReviewSection'), 'ReviewSection');
const TaxSection = lazyPage(() => import('./tax/TaxSection'), 'TaxSection');
const WebhooksSection = lazyPage(() => import('./webhooks/WebhooksSection'), 'WebhooksSection');

/** Where signing in lands: the home, an admin read; a read_only key the audiences. (The layout renders this once the key's role is known.) */
function FirstPage() {
  const key = useCurrentKey();
  return <Navigate to={key.data?.role === 'read_only' ? 'audiences' : 'home'} replace />;
}

function SignedInRoutes() {
  const { credentials } = useAdminSession();
  if (!credentials) return <SignIn />;
  return (
    <Routes>
      <Route path="admin" element={<AdminLayout />}>
        <Route index element={<FirstPage />} />
        <Route
          path="home"
          element={
            <AdminKeyOnly what="The home's figures and queues">
              <HomePage />
            </AdminKeyOnly>
          }
        />
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
        <Route path="affiliates/new" element={<AffiliateCreate />} />
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
      <Route path="*" element={<Navigate to="/admin" replace />} />
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
