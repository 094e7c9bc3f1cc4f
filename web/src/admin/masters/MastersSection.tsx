import { Route, Routes } from 'react-router-dom';
import { MasterDetail } from './MasterDetail';
import { MasterList } from './MasterList';

/** The Master affiliates section's pages, under /app/admin/masters. */
export function MastersSection() {
  return (
    <Routes>
      <Route index element={<MasterList />} />
      <Route path=":agencyId" element={<MasterDetail />} />
    </Routes>
  );
}
