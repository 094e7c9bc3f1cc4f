import express, { type Express } from 'express';
import type { Logger } from '../services/common/logger';
import type { Authenticator } from './auth/authenticator';
import type { GatewayConfig } from './config';
import { errorHandler } from './http/errors';
import { routeFallback } from './http/fallback';
import type { HttpMetrics } from './http/metrics';
import { requestId } from './http/request-id';
import { type AnyRoute, mountRoutes } from './http/route';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { swaggerAssetsPath } from './openapi/docs-page';
import { affiliateDetailRoutes } from './routes/agency/affiliate-detail.routes';
import { affiliatePortalCodeRoutes } from './routes/agency/affiliate-portal-codes.routes';
import { affiliatePortalStatsRoutes } from './routes/agency/affiliate-portal-stats.routes';
import { agencyRoutes } from './routes/agency/agencies.routes';
import { applicationRoutes } from './routes/agency/applications.routes';
import { tierProtectionRoutes } from './routes/agency/tier-protection.routes';
import { affiliateRoutes } from './routes/agency/affiliates.routes';
import { referralRoutes } from './routes/agency/referrals.routes';
import { sdkRoutes } from './routes/agency/sdk.routes';
import { audienceSegmentRoutes } from './routes/audience/audience-segments.routes';
import { userTraitRoutes } from './routes/audience/user-traits.routes';
import { audienceDashboardRoutes } from './routes/audience/audiences.routes';
import { signInRoutes } from './routes/auth/sign-in.routes';
import { claimAdminRoutes } from './routes/claim/claim-admin.routes';
import { claimCheckRoutes } from './routes/claim/claim-checks.routes';
import { claimSettingsRoutes } from './routes/claim/claim-settings.routes';
import { conversionRoutes } from './routes/claim/conversions.routes';
import { payoutRoutes } from './routes/claim/payouts.routes';
import { projectRoutes } from './routes/projects.routes';
import type { RouteDeps } from './routes/route-deps';
import { systemRoutes, type SystemDeps } from './routes/system.routes';
import { affiliatePortalRoutes } from './routes/tax/affiliate-portal.routes';
import { taxAdminRoutes } from './routes/tax/tax-admin.routes';
import { webhookRoutes } from './routes/webhooks/webhooks.routes';

export interface AppDeps {
  config: GatewayConfig;
  logger: Logger;
  authenticator: Authenticator;
  metrics: HttpMetrics;
  routes: RouteDeps;
  readiness: SystemDeps['readiness'];
}

/** The /v1 audience API is also served under /api/v1 (the specification calls it both ways). */
function withApiPrefixAliases(routes: AnyRoute[]): AnyRoute[] {
  return routes.flatMap((route) => [
    route,
    { ...route, path: `/api${route.path}`, operationId: `${route.operationId}ApiPrefixed`, summary: `${route.summary} (/api alias)` },
  ]);
}

export function createApp(deps: AppDeps): { app: Express; routes: AnyRoute[] } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('etag', false);

  let document: OpenApiDocument | undefined;
  const routes: AnyRoute[] = [
    ...systemRoutes({
      metrics: deps.metrics.registry,
      readiness: deps.readiness,
      openApiDocument: () => (document ??= buildOpenApiDocument(routes, {
        title: 'Referral platform API',
        version: '1.0.0',
        description:
          'Audiences, affiliate tax information and claims for incentive programs. Errors share one body: ' +
          '`{ status, code, message, details }`. Lists share one shape: `{ results, total_results, page, page_size }`.',
      })),
    }),
    ...projectRoutes(deps.routes),
    ...audienceDashboardRoutes(deps.routes),
    ...withApiPrefixAliases(audienceSegmentRoutes(deps.routes)),
    ...withApiPrefixAliases(userTraitRoutes(deps.routes)),
    ...signInRoutes(deps.routes),
    ...affiliatePortalRoutes(deps.routes),
    ...taxAdminRoutes(deps.routes),
    ...affiliateRoutes(deps.routes),
    ...affiliateDetailRoutes(deps.routes),
    ...affiliatePortalCodeRoutes(deps.routes),
    ...affiliatePortalStatsRoutes(deps.routes),
    ...referralRoutes(deps.routes),
    ...sdkRoutes(deps.routes),
    ...agencyRoutes(deps.routes),
    ...tierProtectionRoutes(deps.routes),
    ...applicationRoutes(deps.routes),
    ...claimAdminRoutes(deps.routes),
    ...conversionRoutes(deps.routes),
    ...payoutRoutes(deps.routes),
    ...claimCheckRoutes(deps.routes),
    ...claimSettingsRoutes(deps.routes),
    ...webhookRoutes(deps.routes),
  ];

  app.use(requestId());
  app.use(deps.metrics.middleware);
  app.use('/docs/assets', express.static(swaggerAssetsPath, { index: false, maxAge: '1h' }));
  // The route groups hang off the app itself: every router level costs each request a dispatch.
  mountRoutes(app, routes, {
    authenticator: deps.authenticator,
    jsonLimit: deps.config.JSON_BODY_LIMIT,
    batchLimit: deps.config.BATCH_BODY_LIMIT,
    validateResponses: deps.config.VALIDATE_RESPONSES,
    logger: deps.logger,
  });
  app.use(routeFallback(routes));
  app.use(errorHandler(deps.logger));
  return { app, routes };
}
