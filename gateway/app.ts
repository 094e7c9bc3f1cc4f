import express, { type Express } from 'express';
import type { Logger } from '../services/platform/logger';
import type { Authenticator } from './auth/authenticator';
import type { GatewayConfig } from './config';
import { errorHandler } from './http/errors';
import { routeFallback } from './http/fallback';
import type { HttpMetrics } from './http/metrics';
import { requestId } from './http/request-id';
import { cacheable, setApiSecurityHeaders } from './http/security-headers';
import { serveWebApp } from './http/web-app';
import { type AnyRoute, mountRoutes } from './http/route';
import { API_INFO, buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { swaggerAssetsPath } from './openapi/docs-page';
import type { RouteDeps } from './routes/route-deps';
import { apiRoutes } from './routes/api-routes';
import type { SystemDeps } from './routes/system.routes';

export interface AppDeps {
  config: GatewayConfig;
  logger: Logger;
  authenticator: Authenticator;
  metrics: HttpMetrics;
  routes: RouteDeps;
  readiness: SystemDeps['readiness'];
}

export function createApp(deps: AppDeps): { app: Express; routes: AnyRoute[] } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('etag', false);

  let document: OpenApiDocument | undefined;
  const routes: AnyRoute[] = apiRoutes(deps.routes, {
    readiness: deps.readiness,
    openApiDocument: () => (document ??= buildOpenApiDocument(routes, API_INFO)),
  });

  // What every request gets, in one layer (each layer of the app's router costs every request a
  // dispatch): the API's headers, its metrics and access log, and its request id, whose context the
  // rest of the request runs in.
  const inRequestContext = requestId();
  app.use((req, res, next) => {
    setApiSecurityHeaders(res);
    deps.metrics.track(res);
    inRequestContext(req, res, next);
  });
  // The route groups hang off the app itself: every router level costs each request a dispatch.
  mountRoutes(app, routes, {
    authenticator: deps.authenticator,
    jsonLimit: deps.config.JSON_BODY_LIMIT,
    batchLimit: deps.config.BATCH_BODY_LIMIT,
    validateResponses: deps.config.VALIDATE_RESPONSES,
    logger: deps.logger,
  });
  // Files after the API, which no path of theirs reaches (no route is under /app or /docs/assets): an
  // API request, answered by its route, never walks their nine layers.
  app.use('/docs/assets', cacheable(), express.static(swaggerAssetsPath, { index: false, maxAge: '1h' }));
  serveWebApp(app);
  app.use(routeFallback(routes));
  app.use(errorHandler(deps.logger));
  return { app, routes };
}
