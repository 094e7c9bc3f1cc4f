import { Route, Routes } from 'react-router-dom';

/** The Payouts section's pages, under /app/admin/payouts. */
export function PayoutsSection() {
  return (
    <Routes>
      <Route index element={<h1>Payouts</h1>} />
    </Routes>
  );
}
