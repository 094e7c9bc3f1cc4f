import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { RequestHandler } from 'express';

/** The encodings the build writes beside each text asset (web/precompress.ts), best first, with the file ending of each. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
const COMPRESSIBLE = /\.(js|css|svg|html|json)$/;

/** The encodings an Accept-Encoding header allows (a q of 0 refuses one; `*` stands for any not named). */
function accepted(header: string | undefined): Set<string> {
  const allowed = new Set<string>();
  const refused = new Set<string>();
  let any = false;
  for (const part of (header ?? '').split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const quality = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const ok = quality === undefined || Number(quality.slice(2)) > 0;
    if (token === '*') any = ok;
    else if (ok) allowed.add(token);
    else refused.add(token);
  }
  if (any) for (const { name } of ENCODINGS) if (!refused.has(name)) allowed.add(name);
  return allowed;
}

/**
 * Sends the brotli or gzip copy of a built asset under `dir` when the browser accepts it and the build
 * wrote one, with Content-Encoding and the asset's own type; otherwise hands over to express.static,
 * which sends the file as it is. Either way the answer varies by Accept-Encoding, for caches.
 */
export function precompressedAssets(dir: string, cacheControl: { immutable: boolean; maxAge: string }): RequestHandler {
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !COMPRESSIBLE.test(req.path)) return next();
    res.vary('Accept-Encoding');
    let decoded: string;
    try {
      decoded = decodeURIComponent(req.path);
    } catch {
      // A malformed escape: express.static answers it as it answers any bad path.
      return next();
    }
    // normalize() resolves "..": a path can only name a file under dir.
    const file = path.join(dir, path.normalize(decoded));
    if (!file.startsWith(dir + path.sep)) return next();
    const allowed = accepted(req.headers['accept-encoding']);
    const choices = ENCODINGS.filter(({ name }) => allowed.has(name));
    void (async () => {
      for (const { name, suffix } of choices) {
        const found = await stat(file + suffix).catch(() => undefined);
        if (!found?.isFile()) continue;
        res.type(path.extname(file));
        res.setHeader('Content-Encoding', name);
        res.sendFile(file + suffix, { ...cacheControl, dotfiles: 'deny' }, (error) => error && next(error));
        return;
      }
      next();
    })();
  };
}
