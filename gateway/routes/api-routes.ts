import type { AnyRoute } from '../http/route';
import { affiliateDetailRoutes } from './agency/affiliate-detail.routes';
import { affiliatePortalCodeRoutes } from './agency/affiliate-portal-codes.routes';
import { affiliatePortalStatsRoutes } from './agency/affiliate-portal-stats.routes';
import { affiliateStatsApiRoutes } from './agency/affiliate-stats-api.routes';
import { leaderboardRoutes } from './agency/leaderboards.routes';
import { masterRoutes } from './agency/masters.routes';
import { affiliateRoutes } from './agency/affiliates.routes';
import { applicationRoutes } from './agency/applications.routes';
import { programSettingsRoutes } from './agency/program-settings.routes';
import { trackingEventRoutes } from './agency/tracking-events.routes';
import { referralRoutes } from './agency/referrals.routes';
import { sdkRoutes } from './agency/sdk.routes';
import { eventRoutes } from './agency/events.routes';
import { referralCodeRoutes } from './agency/referral-codes.routes';
import { tierProtectionRoutes } from './agency/tier-protection.routes';
import { audienceSegmentRoutes } from './audience/audience-segments.routes';
import { audienceDashboardRoutes } from './audience/audiences.routes';
import { userTraitRoutes } from './audience/user-traits.routes';
import { signInRoutes } from './auth/sign-in.routes';
import { claimAdminRoutes } from './claim/claim-admin.routes';
import { claimCheckRoutes } from './claim/claim-checks.routes';
import { claimSettingsRoutes } from './claim/claim-settings.routes';
import { conversionRoutes } from './claim/conversions.routes';
import { movementDecisionRoutes } from './claim/movements-decisions.routes';
import { reversalRoutes } from './claim/reversals.routes';
import { reconciliationRoutes } from './claim/reconciliation.routes';
import { payoutRoutes } from './claim/payouts.routes';
import { pointsRoutes } from './claim/points.routes';
import { payoutQueryRoutes } from './claim/payout-queries.routes';
import { reviewRoutes } from './claim/review-settings.routes';
import { overviewRoutes } from './overview/overview.routes';
import { projectRoutes } from './projects.routes';
import type { RouteDeps } from './route-deps';
import { systemRoutes, type SystemDeps } from './system.routes';
import { affiliatePortalRoutes } from './tax/affiliate-portal.routes';
import { taxAdminRoutes } from './tax/tax-admin.routes';
import { webhookRoutes } from './webhooks/webhooks.routes';

/** The /v1 audience API is also served under /api/v1 (the specification calls it both ways). */
function withApiPrefixAliases(routes: AnyRoute[]): AnyRoute[] {
  return routes.flatMap((route) => [
    route,
    { ...route, path: `/api${route.path}`, operationId: `${route.operationId}ApiPrefixed`, summary: `${route.summary} (/api alias)` },
  ]);
}

/**
 * Every route the gateway serves, in matching order. Handlers use their dependencies only when a
 * request arrives, so the list (and the OpenAPI document built from it) can also be made without
 * a running stack (scripts/web/write-openapi.ts).
 */
export function apiRoutes(deps: RouteDeps, system: SystemDeps): AnyRoute[] {
  return [
    ...systemRoutes(system),
    ...projectRoutes(deps),
    ...overviewRoutes(deps),
    ...audienceDashboardRoutes(deps),
    ...withApiPrefixAliases(audienceSegmentRoutes(deps)),
    ...withApiPrefixAliases(userTraitRoutes(deps)),
    ...signInRoutes(deps),
    ...affiliatePortalRoutes(deps),
    ...taxAdminRoutes(deps),
    ...affiliateRoutes(deps),
    ...affiliateDetailRoutes(deps),
    ...affiliatePortalCodeRoutes(deps),
    ...affiliatePortalStatsRoutes(deps),
    ...referralRoutes(deps),
    ...sdkRoutes(deps),
    ...affiliateStatsApiRoutes(deps),
    ...eventRoutes(deps),
    ...trackingEventRoutes(deps),
    ...referralCodeRoutes(deps),
    ...masterRoutes(deps),
    ...tierProtectionRoutes(deps),
    ...applicationRoutes(deps),
    ...programSettingsRoutes(deps),
    ...claimAdminRoutes(deps),
    ...movementDecisionRoutes(deps),
    ...reconciliationRoutes(deps),
    ...conversionRoutes(deps),
    ...reversalRoutes(deps),
    ...payoutRoutes(deps),
    ...pointsRoutes(deps),
    ...payoutQueryRoutes(deps),
    ...leaderboardRoutes(deps),
    ...claimCheckRoutes(deps),
    ...claimSettingsRoutes(deps),
    ...reviewRoutes(deps),
    ...webhookRoutes(deps),
  ];
}
