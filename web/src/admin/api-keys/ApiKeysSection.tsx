import { Route, Routes } from 'react-router-dom';
import { ApiKeyCreate } from './ApiKeyCreate';
import { ApiKeyList } from './ApiKeyList';

/** The API keys section's pages, under /app/admin/api-keys. */
export function ApiKeysSection() {
  return (
    <Routes>
      <Route index element={<ApiKeysPage />} />
    </Routes>
  );
}

function ApiKeysPage() {
  return (
    <section aria-labelledby="api-keys-title">
      <h1 id="api-keys-title">API keys</h1>
      <p className="help">
        Keys are shown once, when they are created; the project keeps only their hashes. The API does not record when a key was last used.
      </p>
      <ApiKeyList />
      <ApiKeyCreate />
    </section>
  );
}
