import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { errorHandler } from '../../gateway/http/errors';
import { routeFallback } from '../../gateway/http/fallback';
import { setApiSecurityHeaders } from '../../gateway/http/security-headers';
import { serveWebApp } from '../../gateway/http/web-app';
import { LogCapture } from '../helpers/log-capture';

/** How the gateway serves the built web applications (gateway/http/web-app.ts), over a build made up for the test. */
describe('the web applications under /app', () => {
  const built = mkdtempSync(path.join(tmpdir(), 'web-dist-'));
  const notBuilt = mkdtempSync(path.join(tmpdir(), 'web-none-'));
  const servers: Array<{ close(): void }> = [];

  beforeAll(() => {
    mkdirSync(path.join(built, 'assets'));
    writeFileSync(path.join(built, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(path.join(built, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
  });
  afterAll(() => {
    for (const server of servers) server.close();
    rmSync(built, { recursive: true, force: true });
    rmSync(notBuilt, { recursive: true, force: true });
  });

  async function serve(dir: string): Promise<{ baseUrl: string; served: boolean }> {
    const app = express();
    // As the gateway's app: the API's headers on everything first (gateway/app.ts).
    app.use((_req, res, next) => {
      setApiSecurityHeaders(res);
      next();
    });
    const served = serveWebApp(app, dir);
    app.use(routeFallback([]));
    app.use(errorHandler(new LogCapture().logger('gateway')));
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
  }

  it('answers index.html, never cached, for /app and every client route under it', async () => {
    const { baseUrl, served } = await serve(built);
    expect(served).toBe(true);
    for (const route of ['/app', '/app/', '/app/admin/affiliates', '/app/admin/affiliates/evm_address/0xabc?region=DE']) {
      const response = await fetch(`${baseUrl}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets with a year-long immutable cache, and a missing one as the API’s 404', async () => {
    const { baseUrl } = await serve(built);
    const asset = await fetch(`${baseUrl}/app/assets/index-Ab12Cd34.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');

    const missing = await fetch(`${baseUrl}/app/assets/index-gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
  });

  it('answers every page and file under /app with a strict Content-Security-Policy, no framing, nosniff and no referrer', async () => {
    const { baseUrl } = await serve(built);
    for (const route of ['/app', '/app/admin/affiliates?region=DE', '/app/portal', '/app/assets/index-Ab12Cd34.js']) {
      const response = await fetch(`${baseUrl}${route}`);
      expect(response.status).toBe(200);
      const policy = Object.fromEntries(
        response.headers
          .get('content-security-policy')!
          .split(';')
          .map((directive) => directive.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values.join(' ')]),
      );
      // Scripts, styles and connections from the gateway only; nothing inline, no eval, no plugins; never framed.
      expect(policy).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'style-src': "'self'",
        'connect-src': "'self'",
        'object-src': "'none'",
        'base-uri': "'none'",
        'frame-ancestors': "'none'",
      });
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('serves nothing under /app while the applications are not built, and serves them once they are', async () => {
    const { baseUrl, served } = await serve(notBuilt);
    expect(served).toBe(false);
    const response = await fetch(`${baseUrl}/app/admin`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });

    // Built after the gateway started (a stack started beside the build): no restart needed.
    writeFileSync(path.join(notBuilt, 'index.html'), '<!doctype html><div id="root">late</div>');
    const page = await fetch(`${baseUrl}/app/admin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('late');
  });
});
