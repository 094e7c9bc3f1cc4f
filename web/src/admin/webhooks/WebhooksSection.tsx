import { Route, Routes } from 'react-router-dom';
import { WebhookCreate } from './WebhookCreate';
import { WebhookDetail } from './WebhookDetail';
import { WebhookList } from './WebhookList';

/** The Webhooks section's pages, under /app/admin/webhooks. */
export function WebhooksSection() {
  return (
    <Routes>
      <Route index element={<WebhookList />} />
      <Route path="new" element={<WebhookCreate />} />
      <Route path=":webhookId" element={<WebhookDetail />} />
    </Routes>
  );
}
