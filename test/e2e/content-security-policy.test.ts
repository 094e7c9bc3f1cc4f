import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { closeBrowserAndStack, DESKTOP, openChromium, openWatchedPage, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';

/**
 * The gateway's Content-Security-Policies in Chromium: the pages it serves (the web applications,
 * the API reference) work under them without a single refusal, while what the policies exist for
 * is refused: an injected inline script does not run, and no other site can frame the pages.
 * (The admin dashboard and affiliate portal tests watch every page of their flows the same way.)
 */
describe('the pages under their Content-Security-Policy', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let violations: string[];
  let pageErrors: string[];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    browser = await openChromium();
    context = await browser.newContext({ viewport: DESKTOP });
    ({ page, pageErrors, violations } = await openWatchedPage(context));
  }, 240_000);

  afterAll(() => closeBrowserAndStack(browser, stack));

  it('renders the API reference (Swagger UI), opens an operation and runs it, without a refusal', async () => {
    await page.goto(`${stack.baseUrl}/docs`);
    // GET /healthz (tag System, operationId health): opened, tried out from the page.
    const operation = page.locator('#operations-System-health');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    await operation.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
    // Its answers' example bodies, highlighted, and the schemas at the foot of the page.
    await operation.locator('.responses-wrapper .highlight-code').first().waitFor();
    await page.locator('section.models').waitFor();
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('signs in to the admin dashboard without a refusal, and runs no injected inline script', async () => {
    await signInToAdmin(page, stack.baseUrl, project);
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);

    // What a cross-site scripting hole would inject: refused, and reported as such.
    await expect(page.addScriptTag({ content: 'window.injected = true' })).rejects.toThrow(/Content Security Policy/);
    expect(await page.evaluate<unknown>('window.injected')).toBeUndefined();
    expect(violations).toEqual([expect.stringMatching(/inline script .*script-src 'self'/)]);
    violations.length = 0;
  }, 120_000);

  it('cannot be framed by another page', async () => {
    for (const target of ['/app/', '/docs']) {
      const framing = await context.newPage();
      // A page of another origin (about:blank) holding a frame of the gateway's page: the frame is refused.
      await framing.setContent(`<iframe src="${stack.baseUrl}${target}" title="framed"></iframe>`);
      await pollUntil(async () => violations.some((violation) => /^Framing .*frame-ancestors 'none'/.test(violation)), {
        timeoutMs: 30_000,
        what: `the frame of ${target} to be refused`,
      });
      const framed = framing.frames().find((frame) => frame !== framing.mainFrame());
      expect(await framed?.evaluate<string>('document.body?.innerText ?? ""').catch(() => '')).not.toMatch(/Sign in|Referral platform API/);
      expect(violations).toEqual([expect.stringMatching(/^Framing .*frame-ancestors 'none'/)]);
      violations.length = 0;
      await framing.close();
    }
  }, 120_000);
});
