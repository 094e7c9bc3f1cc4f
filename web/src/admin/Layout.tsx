import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { AppShell } from '../ui/AppShell';
import { useOverview } from './home/overview';
import { sectionCounts } from './home/queues';
import { documentTitle, screenTitle } from './page-title';
import { useAdminSession } from './session';

const SECTIONS = [
  { to: 'home', label: 'Home' },
  { to: 'audiences', label: 'Audiences' },
  { to: 'affiliates', label: 'Affiliates' },
  { to: 'applications', label: 'Applications' },
  { to: 'masters', label: 'Master affiliates' },
  { to: 'program', label: 'Program' },
  { to: 'tax', label: 'Tax' },
  { to: 'payouts', label: 'Payouts' },
  { to: 'review', label: 'Review' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'api-keys', label: 'API keys' },
];

/** The admin dashboard's frame: its sections with what waits in each, the signed-in project by name, and each screen's tab title. */
export function AdminLayout() {
  const { credentials, signOut } = useAdminSession();
  const overview = useOverview();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  // The counts follow the work: read again after any change made here (a decision, a resend), and on each move to another
  // screen once older than the cache's staleTime (changes made elsewhere).
  useEffect(
    () =>
      queryClient.getMutationCache().subscribe((event) => {
        if (event.type === 'updated' && event.action.type === 'success') void queryClient.invalidateQueries({ queryKey: ['overview'] });
      }),
    [queryClient],
  );
  useEffect(() => {
    void queryClient.refetchQueries({ queryKey: ['overview'], stale: true, type: 'active' });
  }, [pathname, queryClient]);
  const projectName = overview.data?.project.name || undefined;
  useEffect(() => {
    document.title = documentTitle(screenTitle(pathname.replace(/^\/admin\/?/, '')), projectName);
  }, [pathname, projectName]);
  const counts = sectionCounts(overview.data?.queues);
  return (
    <AppShell
      brand="Referral admin"
      sections={SECTIONS.map((section) => ({ ...section, count: counts[section.to] }))}
      account={
        <>
          <span className="project" title={credentials?.projectId}>
            {projectName ?? `Project ${credentials?.projectId.slice(0, 8)}`}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </>
      }
    />
  );
}
