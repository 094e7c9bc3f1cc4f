import type { Browser, Page } from 'playwright-core';
import { conversionBody, createCurrency, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { TestClock } from '../helpers/clock';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signInSession, type TestWallet } from '../helpers/wallet';
import { capturePage, DESKTOP, MOBILE, openChromium, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';

/**
 * Issue 26, "one formatter everywhere": an affiliate paid in a 6-decimal currency (USDC) and an
 * 18-decimal one (DAI) reads its earnings in whole tokens with their symbol, dollars with cents and
 * counts with their noun, on the portal's stats and on the admin's affiliate detail and its history
 * (each row a sentence), at desktop and mobile width; never "base units".
 */
describe('money and counts in words, in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  let wallet: TestWallet;
  /** The UTC day the history's payouts rows name (the day the conversions were paid). */
  let payoutDay: string;
  const code = 'ada-money';

  beforeAll(async () => {
    await buildWebApp();
    // The browser's clock is the wall clock: the stack's starts there too, so the portal's session is not expired.
    ({ stack, project } = await startStackWithProject({ clock: new TestClock(new Date()) }));
    const admin = { key: project.keys.admin };
    const usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    const dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    // 1.5 USDC for a trade; 0.001 DAI (1,000,000,000,000,000 base units of 18 decimals: the figure) for a swap.
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { fixed: '1500000' } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '1000000000000000' } });
    wallet = await newWallet();
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      ...admin,
      body: { name: 'Ada', identifier: wallet.address, identifier_type: 'evm_address', code },
    });
    if (created.status !== 201) throw new Error(`affiliate not created: ${created.status} ${created.text}`);
    await sendAttributedConversions(stack, project, [
      conversionBody({ name: 'trade', referral_code: code, volume_usd: '1234.5', revenue_usd: '12.345' }),
      conversionBody({ name: 'swap', referral_code: code, volume_usd: '20', revenue_usd: '0.5' }),
    ]);
    // The history's payouts rows are projected from the payouts: wait for both before the page reads them.
    const history = await pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${wallet.address}/history?page_size=50`, admin);
        const payouts = (response.body.results ?? []).filter((entry: { type: string }) => entry.type === 'payouts');
        return payouts.length === 2 ? payouts : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'the two payouts rows of the history' },
    );
    payoutDay = history[0].data.date;

    // The portal's session, signed in through the API as the wallet would (the sign-in itself is the portal test's).
    const session = await signInSession(stack, wallet);
    const stored = JSON.stringify({ token: session.token, address: wallet.address, expiresAt: session.expiresAt.toISOString() });
    browser = await openChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addInitScript({ content: `sessionStorage.setItem('referral.portal', ${JSON.stringify(stored)});` });
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Runs the reads at desktop then at mobile width: the figures are the same text on both. */
  async function atBothWidths(read: () => Promise<void>) {
    for (const size of [DESKTOP, MOBILE]) {
      await page.setViewportSize(size);
      await read();
    }
    await page.setViewportSize(DESKTOP);
  }
  const sorted = (texts: string[]) => texts.map((text) => text.trim()).sort();

  it('shows the portal’s stats in whole tokens, dollars with cents and counts', async () => {
    await page.goto(`${stack.baseUrl}/app/portal/${project.id}/stats`);
    await page.getByRole('heading', { level: 1, name: 'Stats' }).waitFor();
    await page.getByTestId('stat-earned').first().waitFor();
    await atBothWidths(async () => {
      expect(await page.getByTestId('stat-volume').innerText()).toBe('$1,254.50');
      expect(await page.getByTestId('stat-conversions').innerText()).toBe('2');
      expect(sorted(await page.getByTestId('stat-earned').allInnerTexts())).toEqual(['0.001 DAI', '1.5 USDC']);
      expect(await page.locator('main').innerText()).not.toContain('base units');
    });
    // The exact base units stay in reach, for an audit.
    expect((await page.getByTestId('stat-earned').evaluateAll((items) => items.map((item) => item.getAttribute('title')))).sort()).toEqual([
      '1000000000000000 base units',
      '1500000 base units',
    ]);
    expect(await capturePage(page, 'money-format', '01-portal-stats')).toEqual([]);
  });

  it('shows the admin’s affiliate detail, its earnings and its history in the same words', async () => {
    await signInToAdmin(page, stack.baseUrl, project);
    await page.goto(`${stack.baseUrl}/app/admin/affiliates/evm_address/${wallet.address}`);
    await page.getByRole('heading', { level: 1, name: 'Ada' }).waitFor();
    const history = page.locator('ol.history li');
    await history.filter({ hasText: 'Earned' }).nth(1).waitFor();
    await atBothWidths(async () => {
      const figure = (name: string) =>
        page
          .getByRole('region', { name: 'Figures' })
          .locator('div', { has: page.getByRole('term').getByText(name, { exact: true }) })
          .getByRole('definition');
      expect(await figure('Volume').innerText()).toBe('$1,254.50');
      expect(await figure('Revenue').innerText()).toBe('$12.85');
      expect(await figure('Conversions').innerText()).toBe('2');
      expect(sorted(await page.getByRole('list', { name: 'Earnings' }).getByRole('listitem').allInnerTexts())).toEqual(['0.001 DAI', '1.5 USDC']);
      const sentences = (await history.allInnerTexts()).map((text) => text.replace(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC /, ''));
      expect(sentences).toEqual(
        expect.arrayContaining([
          `Earned 0.001 DAI from 1 conversion on ${payoutDay}.`,
          `Earned 1.5 USDC from 1 conversion on ${payoutDay}.`,
          'Registered the code ada-money.',
          'Joined the program as Ada.',
        ]),
      );
      expect(await page.locator('main').innerText()).not.toMatch(/base units|amount: |currency decimals/);
    });
    expect(await capturePage(page, 'money-format', '02-admin-affiliate-detail')).toEqual([]);
  });
});
