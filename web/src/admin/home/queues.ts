/** The overview's `queues` (GET /api/v1/projects/{projectId}/overview), written out so the unit tests need no React types. */
type Queues = Record<'applications_pending' | 'tax_forms_to_review' | 'conversions_in_review' | 'failing_webhooks', number>;

/** Each queue the home counts: where it is worked, the navigation section it counts on, and its count in words. */
export const QUEUES: ReadonlyArray<{ key: keyof Queues; section: string; to: string; words(count: number): string }> = [
  {
    key: 'applications_pending',
    section: 'applications',
    to: '/admin/applications?status=pending',
    words: (count) => `${plural(count, 'application', 'applications')} to decide`,
  },
  { key: 'tax_forms_to_review', section: 'tax', to: '/admin/tax', words: (count) => `${plural(count, 'tax form', 'tax forms')} to review` },
  {
    key: 'conversions_in_review',
    section: 'review',
    to: '/admin/review/queue',
    words: (count) => `${plural(count, 'flagged conversion', 'flagged conversions')} to approve or decline`,
  },
  {
    key: 'failing_webhooks',
    section: 'webhooks',
    to: '/admin/webhooks',
    words: (count) => `${plural(count, 'webhook endpoint', 'webhook endpoints')} failing to deliver`,
  },
];

function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** The count the navigation shows beside a section: its queue's, when it has one waiting. */
export function sectionCounts(queues: Queues | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const queue of QUEUES) if (queues && queues[queue.key] > 0) counts[queue.section] = queues[queue.key];
  return counts;
}
