import { Route, Routes } from 'react-router-dom';
import { WebhookCreate } from './WebhookCreate';
import { WebhookDetail } from './WebhookDetail';
import { WebhookList } from './WebhookList';
import { AdminKeyOnly } from '../key-role';

/** The Webhooks section's pages, under /app/admin/webhooks. */
export function WebhooksSection() {
  return (
    <Routes>
      <Route index element={<WebhookList />} />
      <Route
        path="new"
        element={
          <AdminKeyOnly what="Creating an endpoint">
            <WebhookCreate />
          </AdminKeyOnly>
        }
      />
      <Route path=":webhookId" element={<WebhookDetail />} />
    </Routes>
  );
}
