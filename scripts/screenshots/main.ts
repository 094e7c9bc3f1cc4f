/**
 * `npm run screenshots`: copies the screenshots docs/web.md shows (docs/screenshots/<flow>-<name>.png) from
 * what the last run of the browser tests with REFERRAL_TEST_SCREENSHOTS=1 captured (test-artifacts/<flow>/<name>-desktop.png, test/e2e/browser.ts's
 * capturePage), so the documentation's pictures are the tests' and not drawn by hand. The tests never write docs/.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { screenshotSources } from './sources';

const ROOT = path.resolve(__dirname, '../..');
const sources = screenshotSources(readFileSync(path.join(ROOT, 'docs/web.md'), 'utf8'), (flow) =>
  existsSync(path.join(ROOT, 'test-artifacts', flow)),
);
const missing: string[] = [];
for (const { target, flow, name } of sources) {
  const from = path.join(ROOT, 'test-artifacts', flow, `${name}-desktop.png`);
  if (!existsSync(from)) {
    missing.push(`${target}: no ${path.relative(ROOT, from)}`);
    continue;
  }
  copyFileSync(from, path.join(ROOT, 'docs/screenshots', target));
}
process.stdout.write(`docs/screenshots: ${sources.length - missing.length} of ${sources.length} copied from test-artifacts\n`);
if (missing.length > 0) {
  process.stderr.write(`${missing.join('\n')}\nrun the browser tests that capture them first (REFERRAL_TEST_SCREENSHOTS=1 npx jest test/e2e)\n`);
  process.exit(1);
}
