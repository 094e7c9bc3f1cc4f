import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');
const WEB = path.join(ROOT, 'web');
const STAMP = path.join(WEB, 'dist', '.sources-hash');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** A hash of everything the bundle is built from. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(path.join(WEB, 'src')), path.join(WEB, 'index.html'), path.join(WEB, 'vite.config.ts')].sort()) {
    hash.update(path.relative(WEB, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * Builds web/dist (what the gateway serves under /app) unless it was built from these very
 * sources already: one build per change, not per test file. Vite only strips types, so the
 * generated API types are not needed here (the type check covers them).
 */
export async function buildWebApp(): Promise<void> {
  const hash = sourcesHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return;
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', 'web', '--logLevel', 'warn'], {
    cwd: ROOT,
    // Jest sets NODE_ENV=test, which Vite would keep: the bundle under test is the production one.
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 16 * 1024 * 1024,
  });
  writeFileSync(STAMP, hash);
}
