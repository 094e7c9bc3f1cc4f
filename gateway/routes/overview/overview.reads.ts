import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Conversion } from '../../../gen/referral/claim/v1/claim';
import { ConversionStatus, ReviewRule, ReviewStatus } from '../../../gen/referral/claim/v1/enums';
import { AffiliateSort, ApplicationStatus, SortOrder } from '../../../gen/referral/agency/v1/enums';
import { RecordStatus } from '../../../gen/referral/tax/v1/enums';
import { MAX_PAGE_SIZE } from '../../../services/rules/pagination';
import type { ServiceClients } from '../../clients';
import { count, required } from '../../http/present';
import type { TopAffiliate } from './overview.figures';

/**
 * How many pages of a list the home reads for a period (100 items each): the services have no
 * per-period aggregate yet, so the figures are summed here from the newest items back to the period's
 * start, at most this many; past it the answer says the figures are incomplete.
 */
const MAX_PAGES = 50;
const ONE = { page: 1, pageSize: 1 };

interface Dated {
  at: Date | undefined;
}

/** Reads a newest-first list page by page until an item is older than `from`; keeps those in [from, to). */
async function readBack<T>(
  readPage: (page: number) => Promise<{ results: T[] }>,
  dateOf: (item: T) => Dated['at'],
  from: Date,
  to: Date,
): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { results } = await readPage(page);
    for (const item of results) {
      const at = dateOf(item);
      if (at === undefined) continue;
      if (at < from) return { items, complete: true };
      if (at < to) items.push(item);
    }
    if (results.length < MAX_PAGE_SIZE) return { items, complete: true };
  }
  return { items, complete: false };
}

/** The period's conversions, newest received first. */
export function periodConversions(clients: ServiceClients, projectId: string, from: Date, to: Date) {
  return readBack<Conversion>(
    async (page) => clients.claim.listConversions({ projectId, status: ConversionStatus.UNSPECIFIED, page: { page, pageSize: MAX_PAGE_SIZE } }),
    (conversion) => conversion.receivedAt,
    from,
    to,
  );
}

/** How many affiliates joined in the period. */
export async function newAffiliates(clients: ServiceClients, projectId: string, from: Date, to: Date) {
  const { items, complete } = await readBack(
    (page) =>
      clients.agency.listAffiliates({
        projectId,
        anyAudienceIds: [],
        conversionNames: [],
        sortBy: AffiliateSort.JOINED_AT,
        order: SortOrder.DESC,
        page: { page, pageSize: MAX_PAGE_SIZE },
      }),
    (affiliate) => affiliate.joinedAt,
    from,
    to,
  );
  return { count: items.length, complete };
}

const totalOf = (reply: { pageInfo?: { totalResults: string } | undefined }) =>
  count(required(reply.pageInfo, 'page_info').totalResults, 'total_results');

/**
 * Endpoints whose newest delivery failed, or is being retried after a failed attempt. The project's
 * first 100 endpoints (the API's page), each asked for its newest delivery.
 */
async function failingWebhooks(clients: ServiceClients, projectId: string): Promise<number> {
  const webhooks = await clients.webhooks.listWebhooks({ projectId, page: { page: 1, pageSize: MAX_PAGE_SIZE } });
  const newest = await Promise.all(
    webhooks.results.map(async (webhook) => (await clients.webhooks.listDeliveries({ projectId, webhookId: webhook.id, page: ONE })).results[0]),
  );
  return newest.filter((delivery) => delivery && (delivery.status === 'failed' || (delivery.status === 'pending' && delivery.attempts > 0))).length;
}

/** The work waiting for someone: each queue's count, from its list's total. */
export async function queueCounts(clients: ServiceClients, projectId: string) {
  const [applications, taxForms, reviews, webhooks] = await Promise.all([
    clients.agency.listApplications({ projectId, status: ApplicationStatus.PENDING, page: ONE }),
    clients.tax.listTaxSubmissions({ projectId, status: RecordStatus.SUBMITTED, page: ONE }),
    clients.claim.listConversionReviews({ projectId, rule: ReviewRule.UNSPECIFIED, status: ReviewStatus.OPEN, page: ONE }),
    failingWebhooks(clients, projectId),
  ]);
  return {
    applications_pending: totalOf(applications),
    tax_forms_to_review: totalOf(taxForms),
    conversions_in_review: totalOf(reviews),
    failing_webhooks: webhooks,
  };
}

/** The top affiliates with their names (null for one the agency no longer knows). */
export function namedAffiliates(clients: ServiceClients, projectId: string, top: readonly TopAffiliate[]) {
  return Promise.all(
    top.map(async (entry) => {
      const name = await clients.agency.getAffiliate({ projectId, user: entry.user }).then(
        (affiliate) => affiliate.name || null,
        (error: { code?: number }) => {
          if (error.code === GrpcStatus.NOT_FOUND) return null;
          throw error;
        },
      );
      return {
        user_identifier: entry.user.identifier,
        user_identifier_type: entry.user.identifierType,
        name,
        conversions: entry.conversions,
        volume_usd: entry.volumeUsd,
      };
    }),
  );
}
