import type { RequestHandler, Response } from 'express';

/** A Content-Security-Policy from its directives, each `name value...`. */
const policy = (...directives: string[]) => directives.join('; ');

/**
 * Every answer of the API is data, never a page: nothing may load from it or frame it, the browser
 * must take its Content-Type as given, and no cache may keep it (answers carry API keys when they are
 * created, session tokens, unmasked tax ids).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': policy("default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * The web applications under /app (they hold an admin API key in session storage, or a wallet
 * session): scripts, styles and connections from the gateway itself only, nothing inline, no
 * plugins, never framed. The bundle (web/dist) is all files of the gateway's own: one script, one
 * stylesheet; React writes inline `style` props through the CSSOM, which style-src does not govern.
 * The portal talks to the browser's wallet through `window.ethereum`, injected by the extension,
 * which CSP does not block either. `data:` images: what a stylesheet may inline.
 */
export const WEB_APP_CSP = policy(
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
);

function setAll(res: Response, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

/**
 * First on every request: the API's headers. A page (the web applications, /docs) replaces the
 * policy with its own; a file served for caching (hashed assets) drops Cache-Control (see cacheable).
 */
export function setApiSecurityHeaders(res: Response): void {
  setAll(res, API_SECURITY_HEADERS);
}

/**
 * Before files served with their own Cache-Control (express.static): it sets one only where none
 * is set yet, so the API's no-store would keep even hashed, immutable assets from every cache.
 */
export function cacheable(): RequestHandler {
  return (_req, res, next) => {
    res.removeHeader('Cache-Control');
    next();
  };
}

/** For the pages and files under a path: their own Content-Security-Policy, and each answer its own Cache-Control. */
export function pageHeaders(contentSecurityPolicy: string): RequestHandler {
  const headers = Object.fromEntries(
    Object.entries({ ...API_SECURITY_HEADERS, 'Content-Security-Policy': contentSecurityPolicy }).filter(([name]) => name !== 'Cache-Control'),
  );
  return (_req, res, next) => {
    setAll(res, headers);
    res.removeHeader('Cache-Control');
    next();
  };
}
