import { Route, Routes } from 'react-router-dom';

/** The API keys section's pages, under /app/admin/api-keys. */
export function ApiKeysSection() {
  return (
    <Routes>
      <Route index element={<h1>API keys</h1>} />
    </Routes>
  );
}
