import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Page } from 'playwright-core';
import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { CHROMIUM_ENDPOINT_VARIABLE, CHROMIUM_OPTIONS } from './chromium-server';

export const ARTIFACTS_DIR = path.resolve(__dirname, '../../test-artifacts');
export const DESKTOP = { width: 1280, height: 900 };
export const MOBILE = { width: 375, height: 812 };

/** Adds to `into` every request `page` makes outside `baseUrl` (data: URLs aside): the apps load nothing from elsewhere. */
export function watchForeignRequests(page: Page, baseUrl: string, into: string[]): void {
  page.on('request', (request) => {
    if (!request.url().startsWith(`${baseUrl}/`) && !request.url().startsWith('data:')) into.push(request.url());
  });
}

/** Signs in to the admin dashboard with the project's admin (or read_only) key, and waits for its first page (Home; Audiences for a read_only key). */
export async function signInToAdmin(page: Page, baseUrl: string, project: { id: string; keys: { admin: string } }): Promise<void> {
  await page.goto(`${baseUrl}/app/`);
  await page.getByLabel('Project id').fill(project.id);
  await page.getByLabel('Admin API key').fill(project.keys.admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // An admin key lands on the home; a read_only key, which may not read the home's figures, on the audiences.
  await page.getByRole('heading', { level: 1, name: /^(Home|Audiences)$/ }).waitFor();
}

/**
 * Chromium (openChromium), a desktop-sized page whose requests outside `baseUrl` go into
 * `foreignRequests`, signed in to the admin dashboard with the project's admin key.
 */
export async function openAdminPage(
  baseUrl: string,
  project: { id: string; keys: { admin: string } },
  foreignRequests: string[],
): Promise<{ browser: Browser; page: Page }> {
  const { browser, page } = await openDesktopPage(baseUrl, foreignRequests);
  await signInToAdmin(page, baseUrl, project);
  return { browser, page };
}

/** Chromium (openChromium) and a desktop-sized page whose requests outside `baseUrl` go into `foreignRequests`. */
export async function openDesktopPage(baseUrl: string, foreignRequests: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await openChromium();
  const page = await browser.newPage({ viewport: DESKTOP });
  watchForeignRequests(page, baseUrl, foreignRequests);
  return { browser, page };
}

/**
 * A new page of `context` with the two lists its tests keep empty (expectNoPageFaults): the page's uncaught
 * errors, and the Content-Security-Policy refusals in every page of the context from now on.
 */
export async function openWatchedPage(context: BrowserContext): Promise<{ page: Page; pageErrors: string[]; violations: string[] }> {
  const violations = policyViolations(context);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { page, pageErrors, violations };
}

/**
 * Chromium and a desktop-sized watched page (openWatchedPage) whose `window.ethereum` is a wallet that signs in
 * only, with the account's key in this process (signInOnlyWallet: each method asked goes into `asked`).
 */
export async function openSignInWalletPage(account: Parameters<typeof signInOnlyWallet>[0], asked: string[] = []) {
  const browser = await openChromium();
  try {
    const context = await browser.newContext({ viewport: DESKTOP });
    await connectTestWallet(context, signInOnlyWallet(account, asked));
    return { browser, ...(await openWatchedPage(context)) };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** What a page's test ends with: no uncaught error in the page, and no refusal by a Content-Security-Policy. */
export function expectNoPageFaults(watched: { pageErrors: string[]; violations: string[] }): void {
  expect(watched.pageErrors).toEqual([]);
  expect(watched.violations).toEqual([]);
}

/** The end of a browser test file: its browser closed, then its stack stopped (either may not have started). */
export async function closeBrowserAndStack(browser: Browser | undefined, stack: { stop(): Promise<void> } | undefined): Promise<void> {
  await browser?.close();
  await stack?.stop();
}

/** One EIP-1193 request of a page to its wallet (`window.ethereum.request`). */
export interface WalletRequest {
  method: string;
  params?: unknown[];
}

/**
 * Gives every page of `context` a `window.ethereum` whose requests `answer` handles in this process:
 * the key never enters the page, and what `answer` throws reaches the page as the request's rejection.
 */
export async function connectTestWallet(context: BrowserContext, answer: (request: WalletRequest) => unknown): Promise<void> {
  await context.exposeBinding('__testWalletRequest', (_source, request: WalletRequest) => answer(request));
  await context.addInitScript({
    content: 'window.ethereum = { request: (args) => window.__testWalletRequest({ method: args.method, params: args.params }) };',
  });
}

/** The answers of a wallet that signs in only (no chain): its account, and `personal_sign` with its key; each method asked is added to `asked`. */
export function signInOnlyWallet(
  account: { address: string; signMessage(args: { message: { raw: Hex } }): Promise<Hex> },
  asked: string[] = [],
): (request: WalletRequest) => unknown {
  return (request) => {
    asked.push(request.method);
    if (request.method === 'eth_requestAccounts' || request.method === 'eth_accounts') return [account.address];
    if (request.method === 'personal_sign') return account.signMessage({ message: { raw: request.params![0] as Hex } });
    throw new Error(`the test wallet does not answer ${request.method}`);
  };
}

/**
 * A browser for one test file: the run's Chromium that global setup launched (chromium-server.ts),
 * else one of the file's own. Either way the file's `close()` ends what the file opened: its
 * contexts and pages in the run's Chromium, or its own Chromium.
 */
export function openChromium(): Promise<Browser> {
  const endpoint = process.env[CHROMIUM_ENDPOINT_VARIABLE];
  return endpoint ? chromium.connect(endpoint) : chromium.launch(CHROMIUM_OPTIONS);
}

/**
 * Every Content-Security-Policy violation the pages of `target` (a page, or a context and all its
 * pages) meet from now on, as Chromium reports it in the console ("Refused to ... because it
 * violates the following Content Security Policy directive"): the gateway's policies must let the
 * applications do all they do, so the list must stay empty.
 */
export function policyViolations(target: { on(event: 'console', listener: (message: ConsoleMessage) => void): unknown }): string[] {
  const violations: string[] = [];
  target.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's violations on the page as it is now that are `serious` or `critical`, one line each. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  // Expressions as text: they run in the page, whose DOM types this (Node) project does not load.
  // Evaluated from here rather than added as an inline <script>, which the pages' Content-Security-Policy refuses.
  if (!(await page.evaluate<boolean>("typeof window.axe !== 'undefined'"))) await page.evaluate(`${AXE_SOURCE}\n;0`);
  const violations = await page.evaluate<AxeViolation[]>('window.axe.run(document).then((result) => result.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/**
 * Whether capturePage also writes screenshots (REFERRAL_TEST_SCREENSHOTS=1). Off by default: a full-page
 * picture at two widths is Chromium's largest cost in a run (its PNG encoding and the page painted at its
 * full height), and nothing in the suite reads them; the pictures the docs show come from `npm run screenshots`.
 */
const SCREENSHOTS = process.env.REFERRAL_TEST_SCREENSHOTS === '1';

/**
 * The accessibility and width checks of the page at desktop and at 375 px mobile width: what must hold
 * on each page; with REFERRAL_TEST_SCREENSHOTS=1, also its screenshots at both, in
 * test-artifacts/<flow>/, for a reviewer to look at.
 */
export async function capturePage(page: Page, flow: string, name: string): Promise<string[]> {
  const dir = path.join(ARTIFACTS_DIR, flow);
  if (SCREENSHOTS) mkdirSync(dir, { recursive: true });
  const problems: string[] = [];
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['mobile', MOBILE],
  ] as const) {
    await page.setViewportSize(size);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(dir, `${name}-${label}.png`), fullPage: true });
    problems.push(...(await seriousAccessibilityViolations(page)).map((problem) => `${name} at ${label} width: ${problem}`));
    // Wide tables scroll inside their own box; the page itself never scrolls sideways.
    const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (pageWidth > size.width) {
      problems.push(
        `${name} at ${label} width: the page is ${pageWidth} px wide, wider than the ${size.width} px window (${await overflowingElements(page)})`,
      );
    }
  }
  await page.setViewportSize(DESKTOP);
  return problems;
}

/** The innermost elements that reach past the window's right edge outside any scrolling box, as `tag.class` (what to fix when a page is too wide). */
function overflowingElements(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const clipped = (element) => {
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true;
      return false;
    };
    const wide = [...document.body.querySelectorAll('*')].filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5 && !clipped(element));
    const innermost = wide.filter((element) => !wide.some((other) => other !== element && element.contains(other)));
    return innermost.slice(0, 5).map((element) => element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '') + (element.id ? '#' + element.id : '')).join(', ');
  })()`);
}
