import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Route, Routes } from 'react-router-dom';
import { ApiError } from './api/client';
import './styles.css';
import { lazyPage } from './ui/lazy-page';
import { Loading } from './ui/states';

// The admin dashboard and the portal are separate chunks: an affiliate never downloads the admin's code, nor an admin the wallet's.
const AdminApp = lazyPage(() => import('./admin/AdminApp'), 'AdminApp');
const PortalApp = lazyPage(() => import('./portal/PortalApp'), 'PortalApp');

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) will not change on a retry; a network fault or 5xx may.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/app">
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="portal/*" element={<PortalApp />} />
            <Route path="*" element={<AdminApp />} />
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
