import type { RequestHandler } from 'express';
import { HttpError } from './errors';
import type { AnyRoute } from './route';

/**
 * After the routes: a known path with another method is 405 (with Allow), anything else 404,
 * both in the standard error body.
 */
export function routeFallback(routes: AnyRoute[]): RequestHandler {
  const patterns = routes.map((route) => ({
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`),
  }));
  return (req, _res, next) => {
    const allowed = [...new Set(patterns.filter(({ pattern }) => pattern.test(req.path)).map(({ method }) => method))];
    if (allowed.length > 0) {
      next(
        new HttpError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not supported here; use ${allowed.join(', ')}`, [], { Allow: allowed.join(', ') }),
      );
      return;
    }
    next(new HttpError(404, 'ROUTE_NOT_FOUND', `no endpoint at ${req.method} ${req.path}; see /docs`));
  };
}
