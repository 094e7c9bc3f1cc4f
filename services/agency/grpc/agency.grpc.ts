import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { AffiliateSort, AffiliateStatus, SortOrder } from '../../../gen/referral/agency/v1/enums';
import { EffectiveTaxStatus } from '../../../gen/referral/tax/v1/enums';
import { enumValue } from '../../rules/enums';
import { optionalEnum, requireField } from '../../rules/fields';
import { implementService } from '../../platform/grpc/service';
import type { Logger } from '../../platform/logger';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { AffiliateRecord } from '../repositories/affiliate-record';
import { activityHandlers } from './activity.grpc';
import { leaderboardHandlers } from './leaderboards.grpc';
import { inviteHandlers } from './invites.grpc';
import { toAffiliateMessage, toAffiliateMetricsMessage, toAttributionMessage, toReferralMessage, toReferrerMessage } from './agency.mappers';
import { masterHandlers } from './masters.grpc';
import { programHandlers } from './programs.grpc';
import { trackingHandlers } from './tracking.grpc';

/**
 * Translates protobuf <-> domain and delegates; no rules live here. Fields the contract requires
 * are resolved here (services/rules/fields.ts), so the domain takes them as given.
 */
export function createAgencyGrpcService(domain: AgencyDomain, logger: Logger): AgencyServiceServer {
  // Every affiliate answered is completed with its master and tiers (domain.details) first.
  const affiliateMessage = async (record: AffiliateRecord) => toAffiliateMessage(await domain.details.describeOne(record));
  return implementService<AgencyServiceServer>(
    'AgencyService',
    {
      createAffiliate: async (req) =>
        affiliateMessage(
          await domain.affiliates.create(
            req.projectId,
            requireField(req.user, 'user'),
            { name: req.name, region: req.region, code: req.code, codeRebateRateBps: req.userRebateRateBps ?? null },
            req.actor?.apiKeyId ?? null,
          ),
        ),

      // The detail carries the affiliate's figures as the list shows them, and each code's.
      getAffiliate: async (req) => {
        const record = await domain.affiliates.get(req.projectId, requireField(req.user, 'user'));
        const [view, metrics, codeStats] = await Promise.all([
          domain.details.describeOne(record),
          domain.affiliates.metricsOf(req.projectId, [record.id]),
          domain.affiliates.codeStats(req.projectId, record.id),
        ]);
        return { ...toAffiliateMessage(view, codeStats), metrics: toAffiliateMetricsMessage(metrics.get(record.id)!) };
      },

      updateAffiliate: async (req) =>
        affiliateMessage(
          await domain.affiliates.update(req.projectId, requireField(req.user, 'user'), {
            mask: req.updateMask ?? [],
            name: req.name,
            region: req.region ?? null,
          }),
        ),

      listAffiliates: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.affiliates.list(
          req.projectId,
          {
            status: optionalEnum(AffiliateStatus, req.status, 'status'),
            region: req.region,
            q: req.q,
            audienceId: req.audienceId,
            anyAudienceIds: req.anyAudienceIds,
            conversionNames: req.conversionNames,
          },
          page,
          {
            by: optionalEnum(AffiliateSort, req.sortBy, 'sort_by') ?? 'joined_at',
            order: optionalEnum(SortOrder, req.order, 'order') ?? 'desc',
          },
        );
        // The page statement brought figures, relations, protections, tiers and tax statuses: nothing more is read.
        const views = domain.details.describeListed(records);
        return {
          results: views.map((view, index) =>
            Object.assign(toAffiliateMessage(view), { metrics: toAffiliateMetricsMessage(records[index]!.metrics) }),
          ),
          pageInfo: pageInfo(page, total),
          taxStatuses: records.map((record) => enumValue(EffectiveTaxStatus, record.taxStatus)),
        };
      },

      rebuildAffiliateMetrics: async (req) => {
        const result = await domain.metrics.rebuild(req.projectId);
        return {
          listed: String(result.listed),
          restored: String(result.restored),
          restoredReversals: String(result.restoredReversals),
          conversions: String(result.conversions),
          attributed: String(result.attributed),
        };
      },

      suspendAffiliate: async (req) =>
        affiliateMessage(await domain.affiliates.suspend(req.projectId, requireField(req.user, 'user'), req.reason, req.actor?.apiKeyId ?? null)),

      reactivateAffiliate: async (req) =>
        affiliateMessage(await domain.affiliates.reactivate(req.projectId, requireField(req.user, 'user'), req.actor?.apiKeyId ?? null)),

      flagAffiliate: async (req) =>
        affiliateMessage(await domain.affiliates.flag(req.projectId, requireField(req.user, 'user'), req.reason, req.actor?.apiKeyId ?? null)),

      unflagAffiliate: async (req) =>
        affiliateMessage(await domain.affiliates.unflag(req.projectId, requireField(req.user, 'user'), req.actor?.apiKeyId ?? null)),

      addAffiliateCode: async (req) => affiliateMessage(await domain.affiliates.addCode(req.projectId, requireField(req.user, 'user'), req.code)),

      updateAffiliateCode: async (req) =>
        affiliateMessage(await domain.affiliates.updateCode(req.projectId, requireField(req.user, 'user'), req.code)),

      setCodeRebateRate: async (req) =>
        affiliateMessage(
          await domain.affiliates.setRebateRate(req.projectId, requireField(req.user, 'user'), req.code, req.userRebateRateBps ?? null),
        ),

      checkCode: async (req) => domain.affiliates.checkCode(req.projectId, req.code),

      createReferral: async (req) => {
        const { referral, created } = await domain.referrals.refer(req.projectId, requireField(req.user, 'user'), req.code);
        return { referral: toReferralMessage(referral), created };
      },

      getReferrer: async (req) => toReferrerMessage(await domain.referrals.referrer(req.projectId, requireField(req.user, 'user'))),

      resolveAttribution: async (req) => toAttributionMessage(await domain.attribution.resolveOne(req.projectId, { user: req.user, at: req.at })),

      batchResolveAttribution: async (req) => ({
        results: (await domain.attribution.resolveBatch(req.projectId, req.items)).map(toAttributionMessage),
      }),

      recordTrackingEvents: async (req) => {
        const recorded = await domain.trackingEvents.record(
          req.projectId,
          req.events.map((event) => ({
            name: event.name,
            trackingId: event.trackingId,
            user: event.user,
            signatureVerified: event.signatureVerified,
            referrer: event.referrer,
            dedupId: event.dedupId,
            argsJson: event.argsJson,
            metadataJson: event.metadataJson,
          })),
        );
        return { batchId: recorded.batchId ?? '', accepted: recorded.accepted, duplicates: recorded.duplicates };
      },

      ...masterHandlers(domain),
      ...programHandlers(domain),
      ...activityHandlers(domain),
      ...leaderboardHandlers(domain),
      ...trackingHandlers(domain),
      ...inviteHandlers(domain),
    },
    logger,
    // Each item of a batch is checked alone (AttributionService), so one bad item fails alone.
    { idsCheckedPerItem: { batchResolveAttribution: 'items' } },
  );
}
