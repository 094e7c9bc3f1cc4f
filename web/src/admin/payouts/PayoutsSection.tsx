import { Navigate, NavLink, Route, Routes } from 'react-router-dom';
import { ClaimSettingsPage } from './ClaimSettingsPage';
import { ConversionList } from './ConversionList';
import { CurrenciesPage } from './CurrenciesPage';
import { LeaderboardPage } from './leaderboards/LeaderboardPage';
import { PayoutTermsEditor } from './PayoutTermsEditor';
import { PayoutTermsList } from './PayoutTermsList';
import { ReconciliationPage } from './ReconciliationPage';

const PAGES = [
  { to: 'currencies', label: 'Currencies' },
  { to: 'terms', label: 'Payout terms' },
  { to: 'conversions', label: 'Conversions' },
  { to: 'leaderboard', label: 'Leaderboards' },
  { to: 'reconciliation', label: 'Reconciliation' },
  { to: 'claim-settings', label: 'Claims' },
];

/** The Payouts section's pages, under /app/admin/payouts: currencies, payout terms, conversions, the leaderboards, the books' reconciliation and the claim address. */
export function PayoutsSection() {
  return (
    <section aria-labelledby="payouts-title">
      <h1 id="payouts-title">Payouts</h1>
      <nav className="subnav" aria-label="Payouts pages">
        <ul>
          {PAGES.map((page) => (
            <li key={page.to}>
              <NavLink to={`/admin/payouts/${page.to}`}>{page.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to="currencies" replace />} />
        <Route path="currencies" element={<CurrenciesPage />} />
        <Route path="terms" element={<PayoutTermsList />} />
        <Route path="terms/new" element={<PayoutTermsEditor />} />
        <Route path="terms/edit/:conversionName" element={<PayoutTermsEditor />} />
        <Route path="conversions" element={<ConversionList />} />
        <Route path="leaderboard" element={<LeaderboardPage />} />
        <Route path="reconciliation" element={<ReconciliationPage />} />
        <Route path="claim-settings" element={<ClaimSettingsPage />} />
        <Route path="*" element={<p>There is no such page.</p>} />
      </Routes>
    </section>
  );
}
