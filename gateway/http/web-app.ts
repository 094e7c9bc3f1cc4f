import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import { HttpError } from './errors';
import { precompressedAssets } from './precompressed';
import { pageHeaders, WEB_APP_CSP } from './security-headers';

/** Where the web applications are served (Vite builds them with this base). */
export const WEB_APP_PATH = '/app';

/**
 * web/dist from the repository (or image) root: the nearest folder above this file holding
 * package.json, so it is found from the sources (gateway/http) and from the build (dist/gateway/http).
 */
export function defaultWebAppDir(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'web', 'dist');
}

/**
 * Serves the built web applications under /app, when they were built (`npm run web:build`; `npm
 * start` builds them): hashed assets cached for a year (a new build has new names), and index.html,
 * never cached, for every other path under /app so the client's router can read deep links. Assets go
 * brotli- or gzip-encoded when the browser takes it (the build's copies, gateway/http/precompressed.ts);
 * no source map is served.
 * /app/demo is the @fuul/sdk tracking demo (web/demo). A missing asset falls through to the API's 404. Every answer under /app carries the applications'
 * Content-Security-Policy and the other page headers (gateway/http/security-headers.ts).
 */
export function serveWebApp(app: Express, dir: string = defaultWebAppDir()): boolean {
  const indexHtml = path.join(dir, 'index.html');
  // Asked per request until the answer is yes, not once at start: a gateway started before the build
  // finished (the tests' stacks start beside it) serves the applications as soon as they are there. Until
  // then /app is the API's 404. Once built, no request looks at the disk again.
  let built = false;
  const isBuilt = () => (built ||= existsSync(indexHtml));
  const whenBuilt =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      isBuilt() ? handler(req, res, next) : next();
  app.use(WEB_APP_PATH, whenBuilt(pageHeaders(WEB_APP_CSP)));
  // Source maps are never published, even one a build left behind: the API's 404, as for any missing file.
  app.use(WEB_APP_PATH, (req, _res, next) =>
    next(
      req.path.endsWith('.map')
        ? new HttpError(404, 'ROUTE_NOT_FOUND', `no endpoint at ${req.method} ${req.originalUrl.split('?')[0]}; see /docs`)
        : undefined,
    ),
  );
  const assets = path.join(dir, 'assets');
  const yearLong = { immutable: true, maxAge: '365d' };
  app.use(`${WEB_APP_PATH}/assets`, whenBuilt(precompressedAssets(assets, yearLong)));
  app.use(`${WEB_APP_PATH}/assets`, whenBuilt(express.static(assets, { index: false, ...yearLong })));
  app.use(WEB_APP_PATH, whenBuilt(express.static(dir, { index: false, maxAge: 0 })));
  // The @fuul/sdk tracking demo is a page of its own, not a route of the applications.
  const demoHtml = path.join(dir, 'demo', 'index.html');
  app.get(
    [`${WEB_APP_PATH}/demo`, `${WEB_APP_PATH}/demo/`],
    whenBuilt((_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(demoHtml);
    }),
  );
  app.get(
    [WEB_APP_PATH, `${WEB_APP_PATH}/*rest`],
    whenBuilt((req, res, next) => {
      if (req.path.startsWith(`${WEB_APP_PATH}/assets/`)) return next();
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(indexHtml);
    }),
  );
  return isBuilt();
}
