import { Route, Routes } from 'react-router-dom';

/** The Webhooks section's pages, under /app/admin/webhooks. */
export function WebhooksSection() {
  return (
    <Routes>
      <Route index element={<h1>Webhooks</h1>} />
    </Routes>
  );
}
