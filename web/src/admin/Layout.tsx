import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { AppShell } from '../ui/AppShell';
import { ErrorMessage, Loading } from '../ui/states';
import { useOverview } from './home/overview';
import { sectionCounts } from './home/queues';
import { READ_ONLY_NOTICE, useCurrentKey } from './key-role';
import { documentTitle, screenTitle } from './page-title';
import { useAdminSession } from './session';

/** adminOnly: a section whose reads need an admin key (the API answers a read-only key 403 there). */
const SECTIONS = [
  { to: 'home', label: 'Home', adminOnly: true },
  { to: 'audiences', label: 'Audiences' },
  { to: 'affiliates', label: 'Affiliates' },
  { to: 'applications', label: 'Applications' },
  { to: 'masters', label: 'Master affiliates', adminOnly: true },
  { to: 'program', label: 'Program' },
  { to: 'tax', label: 'Tax', adminOnly: true },
  { to: 'payouts', label: 'Payouts' },
  { to: 'review', label: 'Review', adminOnly: true },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'api-keys', label: 'API keys', adminOnly: true },
];

/**
 * The admin dashboard's frame: its sections (those the key can read) with what waits in each, the signed-in project by
 * name and the key, each screen's tab title, and the page once the key's role is known.
 */
export function AdminLayout() {
  const { credentials, signOut } = useAdminSession();
  const key = useCurrentKey();
  const readOnly = key.data?.role === 'read_only';
  // The overview (counts, the project's name) is an admin read: a read_only key goes without it.
  const overview = useOverview(undefined, key.data?.role === 'admin');
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
  // The pages wait for the key's role, so none offers a change the key cannot make, even for a moment.
  const waiting = key.isPending ? (
    <Loading label="Reading what the key may do…" />
  ) : key.isError ? (
    <ErrorMessage error={key.error} title="Could not read the signed-in key" onRetry={() => void key.refetch()} />
  ) : undefined;
  return (
    <AppShell
      brand="Referral admin"
      sections={(readOnly ? SECTIONS.filter((section) => !section.adminOnly) : SECTIONS).map((section) => ({
        ...section,
        count: counts[section.to],
      }))}
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
      notice={
        readOnly ? (
          <p className="state read-only-notice" id="read-only-reason">
            <strong>{READ_ONLY_NOTICE}</strong> Signed in with “{key.data?.name}” ({key.data?.key_prefix}…), a read_only key: every page it can read
            is here, without the buttons that would change something.
          </p>
        ) : null
      }
    >
      {waiting}
    </AppShell>
  );
}
