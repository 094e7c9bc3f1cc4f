import { Navigate, NavLink, Route, Routes } from 'react-router-dom';
import { ClaimSettingsPage } from './ClaimSettingsPage';
import { AdminKeyOnly, useCanWrite } from '../key-role';
import { ConversionList } from './ConversionList';
import { CurrenciesPage } from './CurrenciesPage';
import { LeaderboardPage } from './leaderboards/LeaderboardPage';
import { PayoutTermsEditor } from './PayoutTermsEditor';
import { PayoutTermsList } from './PayoutTermsList';
import { ReconciliationPage } from './ReconciliationPage';

/** adminOnly: pages whose reads need an admin key. */
const PAGES = [
  { to: 'currencies', label: 'Currencies', adminOnly: true },
  { to: 'terms', label: 'Payout terms', adminOnly: true },
  { to: 'conversions', label: 'Conversions' },
  { to: 'leaderboard', label: 'Leaderboards' },
  { to: 'reconciliation', label: 'Reconciliation', adminOnly: true },
  { to: 'claim-settings', label: 'Claims', adminOnly: true },
];

/** The Payouts section's pages, under /app/admin/payouts: currencies, payout terms, conversions, the leaderboards, the books' reconciliation and the claim address. */
export function PayoutsSection() {
  const canWrite = useCanWrite();
  const pages = canWrite ? PAGES : PAGES.filter((page) => !page.adminOnly);
  return (
    <section aria-labelledby="payouts-title">
      <h1 id="payouts-title">Payouts</h1>
      <nav className="subnav" aria-label="Payouts pages">
        <ul>
          {pages.map((page) => (
            <li key={page.to}>
              <NavLink to={`/admin/payouts/${page.to}`}>{page.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to={canWrite ? 'currencies' : 'conversions'} replace />} />
        <Route path="currencies" element={<AdminKeyOnly what="The currencies page">{<CurrenciesPage />}</AdminKeyOnly>} />
        <Route path="terms" element={<AdminKeyOnly what="The payout terms">{<PayoutTermsList />}</AdminKeyOnly>} />
        <Route path="terms/new" element={<AdminKeyOnly what="The payout terms">{<PayoutTermsEditor />}</AdminKeyOnly>} />
        <Route path="terms/edit/:conversionName" element={<AdminKeyOnly what="The payout terms">{<PayoutTermsEditor />}</AdminKeyOnly>} />
        <Route path="conversions" element={<ConversionList />} />
        <Route path="leaderboard" element={<LeaderboardPage />} />
        <Route path="reconciliation" element={<AdminKeyOnly what="The reconciliation">{<ReconciliationPage />}</AdminKeyOnly>} />
        <Route path="claim-settings" element={<AdminKeyOnly what="The claim settings">{<ClaimSettingsPage />}</AdminKeyOnly>} />
        <Route path="*" element={<p>There is no such page.</p>} />
      </Routes>
    </section>
  );
}
