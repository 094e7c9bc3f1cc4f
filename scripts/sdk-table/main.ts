/**
 * `npm run sdk:table`: rewrites README.md's table of the @fuul/sdk's methods (render.ts) from the
 * results the last run of test/sdk/sdk-surface.test.ts left. The test itself never writes the README.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { README_FILE, RESULTS_FILE, renderSdkTable, type SdkSurfaceResults, withSdkTable } from './render';

if (!existsSync(RESULTS_FILE)) {
  process.stderr.write(`${path.relative(process.cwd(), RESULTS_FILE)} is missing: run \`npx jest test/sdk/sdk-surface.test.ts\` first\n`);
  process.exit(1);
}
const results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as SdkSurfaceResults;
const readme = readFileSync(README_FILE, 'utf8');
const updated = withSdkTable(readme, renderSdkTable(results));
writeFileSync(README_FILE, updated);
process.stdout.write(updated === readme ? 'README.md: the SDK table is current\n' : 'README.md: rewrote the SDK table\n');
