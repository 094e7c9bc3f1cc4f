/**
 * `npm run build` (and so `npm start`, through prestart): gen/ from proto/, dist/ from the
 * TypeScript, web/dist from web/, each skipped when it is current. A second build with nothing
 * changed takes seconds instead of about a minute:
 * - gen/ is generated again only when its inputs changed (the stamp of scripts/build/inputs.ts);
 * - tsc runs only when its inputs changed, and then incrementally (its state in dist/.tsbuildinfo:
 *   it compiles what changed and what depends on it);
 * - the web bundle is built again only when its inputs changed (its stamp in web/dist).
 * Removing dist/, gen/ or web/dist builds that part from scratch.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { type BuildPart, builtFrom, COMPILED_CODE, GENERATED_CODE, inputsHash, markBuilt, WEB_BUNDLE } from './inputs';

const ROOT = path.resolve(__dirname, '../..');

function run(what: string, bin: string, args: string[]): void {
  const started = Date.now();
  const result = spawnSync(path.join(ROOT, 'node_modules/.bin', bin), args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`build: ${what} failed (${result.signal ?? `exit code ${result.status}`})\n`);
    process.exit(result.status ?? 1);
  }
  process.stderr.write(`build: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** Makes the part unless it is current; the stamp is written only after it was made. */
function unlessCurrent(what: string, part: BuildPart, make: () => void): void {
  const hash = inputsHash(ROOT, part);
  if (builtFrom(ROOT, part, hash)) {
    process.stderr.write(`build: ${what} is current\n`);
    return;
  }
  make();
  markBuilt(ROOT, part, hash);
}

unlessCurrent('gen/ from proto/', GENERATED_CODE, () => run('gen/ from proto/', 'buf', ['generate']));
// After gen/, which it compiles.
unlessCurrent('dist/ (tsc)', COMPILED_CODE, () =>
  run('dist/ (tsc, incremental)', 'tsc', ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo']),
);
unlessCurrent('web/dist', WEB_BUNDLE, () => run('web/dist', 'vite', ['build', 'web', '--logLevel', 'warn']));
