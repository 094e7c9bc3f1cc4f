import { Route, Routes } from 'react-router-dom';

/** The Tax section's pages, under /app/admin/tax. */
export function TaxSection() {
  return (
    <Routes>
      <Route index element={<h1>Tax</h1>} />
    </Routes>
  );
}
