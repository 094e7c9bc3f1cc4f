/**
 * `npm test`'s first step: the browser tests (test/e2e) drive Chromium through playwright-core, and
 * without it six suites fail one by one after minutes of the run. Checked first, with the fix.
 */
import { accessSync, constants, statSync } from 'node:fs';

/** Debian's Chromium unless CHROMIUM_PATH names another: what test/e2e/browser.ts launches. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The line to stop on when there is no Chromium where the tests will look, or undefined. */
export function chromiumProblem(env: NodeJS.ProcessEnv = process.env, executable: (file: string) => boolean = isExecutableFile): string | undefined {
  const file = chromiumPath(env);
  if (executable(file)) return undefined;
  return `Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH (no executable file at ${file})`;
}

if (require.main === module) {
  const problem = chromiumProblem();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
