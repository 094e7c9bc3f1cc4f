import type { Browser, BrowserContext, Page } from 'playwright-core';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { capturePage, DESKTOP, MOBILE, openChromium, signInToAdmin, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin dashboard on a phone and the affiliate list's CSV export, in Chromium against the real
 * stack: at 375 px the sections fold behind a Menu button (aria-expanded) and an affiliate's figures
 * go two to a row; "Export CSV" downloads the list as filtered, in the CLI's columns
 * (screenshots in test-artifacts/admin-mobile-and-export/, checked with axe-core).
 */
const STEP_TIMEOUT_MS = 90_000;

/** The columns of `referral export-affiliates` (cli/affiliates/affiliate-csv.ts), which the dashboard's export writes too. */
const CSV_HEADER =
  'id,identifier,identifier_type,name,region,status,suspended_at,suspension_reason,flagged_at,flag_reason,tax_status,joined_at,updated_at,codes,' +
  'is_master,master_id,master_identifier,current_tier,active_tier,tier_protection_days_remaining,volume_usd,revenue_usd,conversions,end_users,' +
  'converting_users,referred_volume_usd,earnings,agency_earnings';

describe('the admin dashboard on a phone, and the affiliate list exported as CSV', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const foreignRequests: string[] = [];
  const german = [
    { name: 'Anna, "the" Affiliate', identifier: randomEvmAddress() },
    { name: 'Bernd Berlin', identifier: randomEvmAddress() },
  ];
  const american = { name: 'Carla Chicago', identifier: randomEvmAddress() };

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    for (const [affiliate, region] of [...german.map((one) => [one, 'DE'] as const), [american, 'US'] as const]) {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        key: project.keys.admin,
        body: { ...affiliate, identifier_type: 'evm_address', region },
      });
      expect(created.status).toBe(201);
    }
    browser = await openChromium();
    context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    page = await context.newPage();
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
    await signInToAdmin(page, stack.baseUrl, project);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it(
    'folds the sections behind a Menu button at 375 px, opens and closes it, and shows them all at desktop width',
    async () => {
      const menu = page.getByRole('button', { name: 'Menu' });
      const sections = page.getByRole('navigation', { name: 'Sections' });
      // At desktop width every section is a link in the bar, and there is no Menu button.
      expect(await menu.isVisible()).toBe(false);
      expect(await sections.getByRole('link', { name: 'Affiliates', exact: true }).isVisible()).toBe(true);

      await page.setViewportSize(MOBILE);
      await menu.waitFor();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await sections.isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await sections.getByRole('link', { name: 'Affiliates', exact: true }).waitFor();
      expect(await sections.getByRole('link').count()).toBe(11);
      expect(await capturePage(page, 'admin-mobile-and-export', '01-menu-open')).toEqual([]);

      // capturePage leaves the page at desktop width; back on the phone, a section chosen closes the menu.
      await page.setViewportSize(MOBILE);
      await sections.getByRole('link', { name: 'Affiliates', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Affiliates' }).waitFor();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await sections.isVisible()).toBe(false);
      // The keyboard opens it too.
      await menu.focus();
      await page.keyboard.press('Enter');
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await page.keyboard.press('Enter');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows an affiliate’s figures two to a row at 375 px',
    async () => {
      await page.setViewportSize(MOBILE);
      await page.goto(`${stack.baseUrl}/app/admin/affiliates/evm_address/${american.identifier}`);
      await page.getByRole('heading', { level: 1, name: american.name }).waitFor();
      const cards = page.locator('dl.facts').first().locator(':scope > div');
      expect(await cards.count()).toBeGreaterThanOrEqual(3);
      const [first, second, third] = await Promise.all([0, 1, 2].map(async (index) => (await cards.nth(index).boundingBox())!));
      expect(second!.y).toBe(first!.y);
      expect(second!.x).toBeGreaterThan(first!.x + first!.width);
      expect(third!.y).toBeGreaterThan(first!.y);
      expect(third!.x).toBe(first!.x);
      expect(await capturePage(page, 'admin-mobile-and-export', '02-affiliate-figures')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'exports the affiliate list as filtered to a CSV file, in the CLI’s columns, and says how many',
    async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${stack.baseUrl}/app/admin/affiliates?region=DE`);
      await page.getByText('2 affiliates', { exact: true }).waitFor();
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toMatch(new RegExp(`^affiliates-${project.id.slice(0, 8)}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      const chunks: Buffer[] = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
      const lines = Buffer.concat(chunks).toString('utf8').split('\r\n');
      expect(lines[0]).toBe(CSV_HEADER);
      expect(lines.slice(3)).toEqual(['']);
      // The two in region DE (the name with a comma and quotes quoted as RFC 4180 says), in the list's order.
      const listed = await page
        .getByRole('row')
        .filter({ hasText: /Anna|Bernd/ })
        .allInnerTexts();
      const rows = listed.map((text) => (text.includes('Anna') ? german[0]! : german[1]!));
      expect(rows).toHaveLength(2);
      expect(lines[1]).toContain(
        `,${rows[0]!.identifier},evm_address,${rows[0] === german[0] ? '"Anna, ""the"" Affiliate"' : 'Bernd Berlin'},DE,active,`,
      );
      expect(lines[2]).toContain(
        `,${rows[1]!.identifier},evm_address,${rows[1] === german[0] ? '"Anna, ""the"" Affiliate"' : 'Bernd Berlin'},DE,active,`,
      );
      expect(lines.join('\n')).not.toContain(american.identifier);
      await page.getByRole('status').filter({ hasText: 'Exported 2 affiliates as filtered.' }).waitFor();
      expect(await capturePage(page, 'admin-mobile-and-export', '03-exported')).toEqual([]);
      expect(foreignRequests).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );
});
