import { type BrowserServer, chromium, type LaunchOptions } from 'playwright-core';
import { chromiumPath } from '../../scripts/check-chromium';

/** Debian's Chromium unless CHROMIUM_PATH names another (`.ci/run` installs the package when missing; `npm test` checks it first). */
const CHROMIUM_PATH = chromiumPath();
export const CHROMIUM_OPTIONS: LaunchOptions = { executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] };

/** Set by global setup for the test workers: where the run's one Chromium listens (a WebSocket address). */
export const CHROMIUM_ENDPOINT_VARIABLE = 'REFERRAL_TEST_CHROMIUM_ENDPOINT';

// Kept on globalThis: Jest may load global setup and teardown as separate module instances.
const state = globalThis as { __referralChromium?: Promise<BrowserServer | undefined> };

/**
 * For global setup, when the run holds browser tests: one Chromium for the whole run, which each
 * browser test file connects to (in a second's fraction) instead of launching its own (2 to 3 s on
 * a loaded machine, per file); each file works in contexts of its own. Launched beside the
 * template's migrations; the workers find it through CHROMIUM_ENDPOINT_VARIABLE.
 */
export function startChromiumServer(): Promise<void> {
  const server = chromium.launchServer(CHROMIUM_OPTIONS).then(
    (launched) => {
      process.env[CHROMIUM_ENDPOINT_VARIABLE] = launched.wsEndpoint();
      return launched;
    },
    // No Chromium here: each file launches its own, and its failure names the cause.
    () => undefined,
  );
  state.__referralChromium = server;
  return server.then(() => undefined);
}

/** For global teardown. */
export async function stopChromiumServer(): Promise<void> {
  const server = await state.__referralChromium;
  state.__referralChromium = undefined;
  delete process.env[CHROMIUM_ENDPOINT_VARIABLE];
  await server?.close();
}
