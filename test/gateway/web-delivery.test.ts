import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { errorHandler } from '../../gateway/http/errors';
import { routeFallback } from '../../gateway/http/fallback';
import { setApiSecurityHeaders } from '../../gateway/http/security-headers';
import { defaultWebAppDir, serveWebApp } from '../../gateway/http/web-app';
import { buildWebApp } from '../e2e/web-build';
import { LogCapture } from '../helpers/log-capture';

/**
 * What a browser downloads from the real build (web/dist, built as the browser tests build it): each
 * text asset brotli- or gzip-encoded as it asks, within a size budget, the applications split into
 * chunks, no source map, and a favicon, all under the applications' Content-Security-Policy.
 */
describe('the web applications as delivered', () => {
  const dir = defaultWebAppDir();
  /** Encoded (brotli) bytes: what the first screen downloads, and the largest chunk any screen adds. */
  const BUDGET = { firstScreen: 110_000, largestChunk: 130_000 };
  let baseUrl: string;
  let server: { close(): void } | undefined;
  let indexHtml: string;

  beforeAll(async () => {
    await buildWebApp();
    const app = express();
    app.use((_req, res, next) => {
      setApiSecurityHeaders(res);
      next();
    });
    serveWebApp(app, dir);
    app.use(routeFallback([]));
    app.use(errorHandler(new LogCapture().logger('gateway')));
    const listening = app.listen(0, '127.0.0.1');
    server = listening;
    await new Promise((resolve) => listening.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    indexHtml = await (await fetch(`${baseUrl}/app/admin/affiliates`)).text();
  }, 300_000);
  afterAll(() => server?.close());

  /** The assets index.html loads before anything renders: the entry script, what it preloads, the stylesheet. */
  const firstScreenAssets = () => [...indexHtml.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  const encodedSize = async (url: string, encoding: string) => {
    const response = await fetch(`${baseUrl}${url}`, { headers: { 'Accept-Encoding': encoding } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    return { response, bytes: Number(response.headers.get('content-length')) };
  };

  it('sends each asset brotli-encoded to a browser that takes brotli, gzip to one that takes only gzip, and as it is otherwise', async () => {
    const [entry] = firstScreenAssets().filter((url) => url.endsWith('.js'));
    expect(entry).toMatch(/^\/app\/assets\/main-[\w-]+\.js$/);
    const raw = readFileSync(path.join(dir, entry!.replace('/app/', '')));
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1.0, br;q=0', 'gzip'],
      ['identity', null],
    ] as const) {
      const { response, bytes } = await encodedSize(entry!, accept);
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(response.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      expect(response.headers.get('vary')).toMatch(/Accept-Encoding/i);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      if (encoding) expect(bytes).toBeLessThan(raw.length / 2.5);
      else expect(bytes).toBe(raw.length);
    }
    // The stylesheet too, with its own type.
    const css = firstScreenAssets().find((url) => url.endsWith('.css'))!;
    const { response } = await encodedSize(css, 'br');
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('keeps the first screen and every chunk within the budget (printed), the admin and the portal in chunks of their own', async () => {
    const sizes: Array<[string, number]> = [];
    for (const url of firstScreenAssets()) sizes.push([url, (await encodedSize(url, 'br')).bytes]);
    const firstScreen = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
    const chunks = readdirSync(path.join(dir, 'assets')).filter((name) => name.endsWith('.js'));
    const largest = chunks
      // A file under 1 KB has no compressed copy (web/precompress.ts): it goes as it is.
      .map(
        (name) => [name, statSync(path.join(dir, 'assets', existsSync(path.join(dir, 'assets', `${name}.br`)) ? `${name}.br` : name)).size] as const,
      )
      .sort((a, b) => b[1] - a[1])[0]!;
    console.log(
      [
        `Web delivery (brotli bytes): first screen ${firstScreen} (budget ${BUDGET.firstScreen})`,
        ...sizes.map(([url, bytes]) => `  ${url} ${bytes}`),
        `largest chunk ${largest[0]} ${largest[1]} (budget ${BUDGET.largestChunk}); ${chunks.length} chunks`,
      ].join('\n'),
    );
    expect(firstScreen).toBeLessThanOrEqual(BUDGET.firstScreen);
    expect(largest[1]).toBeLessThanOrEqual(BUDGET.largestChunk);
    expect(chunks.some((name) => /^AdminApp-/.test(name))).toBe(true);
    expect(chunks.some((name) => /^PortalApp-/.test(name))).toBe(true);
    expect(chunks.some((name) => /^AffiliateList-/.test(name))).toBe(true);
  });

  it('answers a path outside the build or a malformed one as a 4xx, never a file from elsewhere', async () => {
    for (const url of ['/app/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/app/assets/..%2f..%2f..%2fpackage.json.js', '/app/assets/%E0%A4%A.js']) {
      const response = await fetch(`${baseUrl}${url}`, { headers: { 'Accept-Encoding': 'br' } });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await response.text()).not.toContain('"name": "referral-platform"');
    }
  });

  it('serves no source map: none is built, and one asked for is the API’s 404', async () => {
    const files = readdirSync(dir, { recursive: true }).map(String);
    expect(files.filter((name) => name.endsWith('.map'))).toEqual([]);
    const [entry] = firstScreenAssets();
    for (const url of [`${entry}.map`, '/app/assets/main.js.map', '/app/index.html.map']) {
      const response = await fetch(`${baseUrl}${url}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
    }
    for (const url of firstScreenAssets().filter((asset) => asset.endsWith('.js'))) {
      expect(await (await fetch(`${baseUrl}${url}`)).text()).not.toContain('sourceMappingURL');
    }
  });

  it('links and serves an SVG favicon on both pages, under the Content-Security-Policy', async () => {
    for (const page of ['/app/admin', '/app/portal/x', '/app/demo']) {
      expect(await (await fetch(`${baseUrl}${page}`)).text()).toContain('<link rel="icon" type="image/svg+xml" href="/app/favicon.svg" />');
    }
    const favicon = await fetch(`${baseUrl}/app/favicon.svg`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(favicon.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await favicon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
