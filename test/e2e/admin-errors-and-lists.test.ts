import type { Browser, Page } from 'playwright-core';
import { conversionBody } from '../claim/claim-fixtures';
import { evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { capturePage, DESKTOP, openAdminPage } from './browser';
import { buildWebApp } from './web-build';

/**
 * Issue 26 in Chromium against the real stack: the API's refusals in sentences, once each and gone
 * when corrected; a Retry on a failed load; the affiliate filters keeping what is typed when a
 * choice changes, shown as removable chips; a conversion opened in a side panel that takes focus
 * and gives it back (screenshots in test-artifacts/admin-errors-and-lists/, checked with axe-core).
 */
const STEP_TIMEOUT_MS = 60_000;
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('errors, filters and records beside the list in the admin dashboard, in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];
  const conversionIds: string[] = [];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    const admin = { key: project.keys.admin };
    for (const [index, affiliate] of [
      { name: 'Ada Lovelace', region: 'DE' },
      { name: 'Blaise Pascal', region: 'FR' },
      { name: 'Carl Gauss', region: 'DE' },
    ].entries()) {
      const body = { ...affiliate, identifier: evmAddress(0xe1 + index), identifier_type: 'evm_address' };
      expect((await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, { ...admin, body })).status).toBe(201);
    }
    // A full page of conversions (no terms: each settles as no_terms), so the newest's row is far above the list's end.
    const conversions = Array.from({ length: 25 }, () => conversionBody());
    conversionIds.push(...conversions.map((conversion) => conversion.id));
    const sent = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
    expect([200, 202]).toContain(sent.status);
    ({ browser, page } = await openAdminPage(stack.baseUrl, project, foreignRequests));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  afterEach(() => expect(foreignRequests).toEqual([]));

  it(
    'words a refused form in sentences, each once at its field, and drops each as its field is edited and all on success',
    async () => {
      await page.goto(`${stack.baseUrl}/app/admin/payouts/currencies`);
      await page.getByLabel('Chain id').fill('8453');
      await page.getByLabel('Token contract address').fill(TOKEN);
      await page.getByLabel('Name', { exact: true }).fill('U'.repeat(201));
      await page.getByLabel('Decimals').fill('99');
      await page.getByRole('button', { name: 'Add currency' }).click();

      const banner = page.getByRole('alert');
      await banner.waitFor();
      // The banner points at the fields; each field says its own problem in words, and nothing twice.
      expect(await banner.innerText()).toBe('The currency was not added: Correct the 2 fields marked below.');
      expect(await page.locator('#currency-decimals-error').innerText()).toBe('Must be at most 77.');
      expect(await page.locator('#currency-name-error').innerText()).toBe('Must have at most 200 characters.');
      const text = await page.locator('main').innerText();
      expect(text).not.toMatch(/Too big|expected number|decimals:|<=/);
      expect(await page.getByText('Must be at most 77.').count()).toBe(1);
      expect(await capturePage(page, 'admin-errors-and-lists', '01-currency-refused')).toEqual([]);

      await page.getByLabel('Decimals').fill('6');
      await page.locator('#currency-decimals-error').waitFor({ state: 'hidden' });
      expect(await page.getByLabel('Decimals').getAttribute('aria-invalid')).toBeNull();
      expect(await banner.innerText()).toBe('The currency was not added: Correct the field marked below.');
      await page.getByLabel('Name', { exact: true }).fill('USDC');
      await banner.waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Add currency' }).click();
      await page.getByText('Added USDC on chain 8453.').waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await page.locator('.field-error:visible').count()).toBe(0);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'says a failed load in a sentence with a Retry that loads the list without reloading the page',
    async () => {
      let failing = true;
      const affiliateList = (url: URL) => /^\/api\/v1\/projects\/[^/]+\/affiliates$/.test(url.pathname);
      await page.route(affiliateList, (route) =>
        failing
          ? route.fulfill({
              status: 503,
              contentType: 'application/json',
              body: JSON.stringify({
                status: 503,
                code: 'SERVICE_UNAVAILABLE',
                message: 'a service this request needs is not available; try again shortly',
                details: [],
              }),
            })
          : route.continue(),
      );
      try {
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Affiliates', exact: true }).click();
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.innerText()).toMatch(/^A service this request needs is not available; try again shortly\.\s+Retry$/);
        failing = false;
        await alert.getByRole('button', { name: 'Retry' }).click();
        await page.getByText('3 affiliates').waitFor();
        expect(await page.getByRole('alert').count()).toBe(0);
      } finally {
        await page.unrouteAll();
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'keeps the typed region when a status is picked, applies both, and lists them as chips that remove their filter',
    async () => {
      await page.goto(`${stack.baseUrl}/app/admin/affiliates`);
      await page.getByText('3 affiliates').waitFor();
      await page.getByLabel('Region (country code)').fill('DE');
      await page.getByLabel('Status').selectOption('active');
      await page.getByText('2 affiliates').waitFor();
      expect(await page.getByLabel('Region (country code)').inputValue()).toBe('DE');
      const url = new URL(page.url()).searchParams;
      expect([url.get('region'), url.get('status')]).toEqual(['DE', 'active']);

      const chips = page.getByRole('list', { name: 'Active filters' });
      expect(await chips.getByRole('button').allInnerTexts()).toEqual(['Status: active ×', 'Region: DE ×']);
      expect(await capturePage(page, 'admin-errors-and-lists', '02-affiliate-filter-chips')).toEqual([]);

      // Sorting keeps what is typed but not applied yet.
      await page.getByLabel('Identifier or name starts with').fill('Ca');
      await page.getByRole('button', { name: /^Joined/ }).click();
      await page.waitForURL(/order=asc/);
      expect(await page.getByLabel('Identifier or name starts with').inputValue()).toBe('Ca');

      await chips.getByRole('button', { name: 'Remove filter Region: DE' }).click();
      await page.getByText('3 affiliates').waitFor();
      expect(new URL(page.url()).searchParams.get('region')).toBeNull();
      expect(new URL(page.url()).searchParams.get('status')).toBe('active');
      expect(await page.getByLabel('Region (country code)').inputValue()).toBe('');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'opens a conversion in a side panel in view with focus in it, and gives focus back to its row on Escape',
    async () => {
      await page.goto(`${stack.baseUrl}/app/admin/payouts/conversions`);
      await page.getByText('25 conversions').waitFor();
      // The newest, at the top of the list: the detail used to be drawn under all 25 rows, out of sight.
      const opener = page.locator('tr.conversion-row').first().getByRole('button');
      const id = await opener.innerText();
      expect(conversionIds).toContain(id);
      await opener.click();

      const panel = page.getByRole('dialog', { name: `Conversion ${id}` });
      await panel.waitFor();
      const box = (await panel.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeLessThan(DESKTOP.height / 2);
      expect(await page.locator('[role=dialog]:focus, [role=dialog] :focus').count()).toBe(1);
      await panel.getByRole('heading', { name: 'Movements' }).waitFor();
      expect(await capturePage(page, 'admin-errors-and-lists', '03-conversion-side-panel')).toEqual([]);

      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      expect(await page.locator('button:focus').innerText()).toBe(id);
      expect(new URL(page.url()).searchParams.get('selected')).toBeNull();

      // Close does the same.
      await opener.click();
      await panel.getByRole('button', { name: 'Close' }).click();
      await panel.waitFor({ state: 'detached' });
      expect(await page.locator('button:focus').innerText()).toBe(id);
    },
    STEP_TIMEOUT_MS,
  );
});
