import { Route, Routes } from 'react-router-dom';

/** The Master affiliates section's pages, under /app/admin/masters. */
export function MastersSection() {
  return (
    <Routes>
      <Route index element={<h1>Master affiliates</h1>} />
    </Routes>
  );
}
