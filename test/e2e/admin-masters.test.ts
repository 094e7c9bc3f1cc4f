import type { Browser, Page } from 'playwright-core';
import { conversionBody, createCurrency, evmUser, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { usdUnits } from '../helpers/usd';
import { capturePage, closeBrowserAndStack, openDesktopPage, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';

/**
 * The flow "an admin designates a master and reads its numbers", in Chromium against the
 * real stack: designate (after the API refuses a spread), bind sub-affiliates (after the API refuses
 * one bound elsewhere), read the master's figures as the sums over its sub-affiliates once their
 * conversions are paid, unbind one, change the spread, remove the designation; and edit an
 * audience's badge. Each page is screenshotted (test-artifacts/admin-masters/) and checked with axe-core.
 */
const STEP_TIMEOUT_MS = 120_000;
const SECOND = 1_000;
/** The currencies' decimals, to read the amounts the pages show back into base units. */
const DECIMALS: Record<string, number> = { USDC: 6, DAI: 18 };

interface Affiliate {
  name: string;
  identifier: string;
  code: string;
}

/** "$1,234.50" -> 1234.5 as exact units of test/helpers/usd. */
const shownUsd = (text: string) => usdUnits(text.replace(/[$,]/g, ''));

/** ["1.5 USDC", "5 DAI"] -> { USDC: 1500000n, DAI: 5000000000000000000n }, summed per currency. */
function shownAmounts(texts: readonly string[]): Record<string, bigint> {
  const sums: Record<string, bigint> = {};
  for (const text of texts) {
    const match = /^([\d,]+)(?:\.(\d+))? (\w+)$/.exec(text.trim());
    if (!match) throw new Error(`not an amount with its currency: ${text}`);
    const [, whole, fraction = '', currency] = match as unknown as [string, string, string | undefined, string];
    const decimals = DECIMALS[currency]!;
    sums[currency] = (sums[currency] ?? 0n) + BigInt(whole.replace(/,/g, '') + fraction.padEnd(decimals, '0'));
  }
  return sums;
}

describe('master affiliates and badges in the admin dashboard, in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  let audienceId: string;
  const foreignRequests: string[] = [];
  const [acme, sam, tia, uma, otto, rival] = ['Acme Agency', 'Sam Sub', 'Tia Sub', 'Uma Sub', 'Otto Elsewhere', 'Rival Agency'].map(
    (name, index): Affiliate => ({ name, identifier: evmAddress(0xb1 + index), code: `code${index}${name.slice(0, 3).toLowerCase()}` }),
  ) as [Affiliate, Affiliate, Affiliate, Affiliate, Affiliate, Affiliate];

  const admin = () => ({ key: project.keys.admin });
  const agencies = () => `/api/v1/projects/${project.id}/agencies`;
  const agencyRows = async () =>
    (await stack.db.query('SELECT affiliate_id FROM agency.agency_designations WHERE project_id = $1 AND removed_at IS NULL', [project.id])).rows;

  const send = (conversions: Array<Record<string, unknown>>) => sendAttributedConversions(stack, project, conversions);
  const trade = (affiliate: Affiliate, volume: string, rewardBase: string) =>
    conversionBody({ user: evmUser(), referral_code: affiliate.code, volume_usd: volume, reward_base: rewardBase });
  const swap = (affiliate: Affiliate, volume: string, rewardBase: string) =>
    conversionBody({ user: evmUser(), name: 'swap', referral_code: affiliate.code, volume_usd: volume, reward_base: rewardBase });

  /** The master's figures as the page shows them, and the sums over the sub-affiliate rows it shows (one page holds them all). */
  async function shownFigures() {
    // The master and its sub-affiliates are two reads: the rows come in one answer, all at once.
    await page.locator('tbody td.brought-volume').first().waitFor();
    return {
      volume: shownUsd(await page.getByTestId('master-referred-volume').innerText()),
      earnings: shownAmounts(await page.getByTestId('master-earnings').locator('li').allInnerTexts()),
      rowsVolume: (await page.locator('tbody td.brought-volume').allInnerTexts()).reduce((sum, text) => sum + shownUsd(text), 0n),
      rowsEarnings: shownAmounts(await page.locator('tbody td.brought-earnings li').allInnerTexts()),
    };
  }

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    const usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    const dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '5' } });
    for (const affiliate of [acme, sam, tia, uma, otto, rival]) {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        ...admin(),
        body: { name: affiliate.name, identifier: affiliate.identifier, identifier_type: 'evm_address', code: affiliate.code },
      });
      if (created.status !== 201) throw new Error(`affiliate not created: ${created.status} ${created.text}`);
    }
    audienceId = (await createSegment(stack, project, { name: 'Champions' })).id;
    ({ browser, page } = await openDesktopPage(stack.baseUrl, foreignRequests));
  }, 240_000);

  afterAll(() => closeBrowserAndStack(browser, stack));

  it(
    'signs in, finds no master yet, shows the API’s spread error at its field, then designates a master',
    async () => {
      await signInToAdmin(page, stack.baseUrl, project);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Master affiliates' }).click();
      await page.getByText('No master affiliates yet.').waitFor();
      expect(await capturePage(page, 'admin-masters', '01-masters-empty')).toEqual([]);

      await page.getByLabel('Affiliate identifier').fill(acme.identifier);
      await page.getByLabel('Spread (basis points').fill('10001');
      await page.getByRole('button', { name: 'Designate master' }).click();
      await page.locator('#designate-spread-error').filter({ hasText: /\S/ }).waitFor();
      expect(await page.getByLabel('Spread (basis points').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByRole('alert').innerText()).toMatch(/^The master was not designated: .+/);
      expect(await capturePage(page, 'admin-masters', '02-designate-refused')).toEqual([]);
      expect(await agencyRows()).toEqual([]);

      await page.getByLabel('Spread (basis points').fill('300');
      await page.getByRole('button', { name: 'Designate master' }).click();
      await page.getByRole('heading', { level: 1, name: acme.name }).waitFor();
      expect(page.url()).toMatch(/\/app\/admin\/masters\/[0-9a-f-]{36}$/);
      expect(await page.getByTestId('master-spread').innerText()).toBe('3% (300 bps)');
      expect(await page.getByTestId('master-sub-affiliates').innerText()).toBe('0');
      await page.getByText('No sub-affiliates yet: bind some above.').waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'binds several sub-affiliates at once, after listing the one the API refused as bound to another master',
    async () => {
      // Otto is bound to another master: the whole bind is refused, naming him.
      const rivalId = (await stack.api.post(agencies(), { ...admin(), body: { user_identifier: rival.identifier, spread_bps: 100 } })).body
        .id as string;
      expect(
        (await stack.api.post(`${agencies()}/${rivalId}/sub-affiliates`, { ...admin(), body: { user_identifiers: [otto.identifier] } })).status,
      ).toBe(200);

      const identifiers = page.getByLabel('Affiliate identifiers');
      await identifiers.fill([sam, tia, uma, otto].map((affiliate) => affiliate.identifier).join('\n'));
      await page.getByRole('button', { name: 'Bind sub-affiliates' }).click();
      const refused = page.getByRole('list', { name: 'Refused affiliates' });
      await refused.waitFor();
      expect(await refused.locator('li').allInnerTexts()).toEqual([expect.stringContaining(otto.identifier)]);
      expect(await page.getByRole('alert').innerText()).toMatch(/^Nothing was bound: .+/);
      expect(await capturePage(page, 'admin-masters', '03-bind-refused')).toEqual([]);
      expect(await page.getByTestId('master-sub-affiliates').innerText()).toBe('0');

      await identifiers.fill(`${sam.identifier}, ${tia.identifier}\n${uma.identifier}`);
      await page.getByRole('button', { name: 'Bind sub-affiliates' }).click();
      await page.getByText('Bound 3.').waitFor();
      await page.getByTestId('master-sub-affiliates').filter({ hasText: '3' }).waitFor();
      await page.locator('tbody tr').nth(2).waitFor();
      expect((await page.locator('tbody tr td:first-child a').allInnerTexts()).sort()).toEqual([sam.name, tia.name, uma.name]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the master’s volume and earnings per currency as the sums over its sub-affiliates, and sorts them by volume brought',
    async () => {
      stack.clock.advance(SECOND);
      // Reward bases in the currencies' base units: the master earns floor(reward_base × 3%) of each, in USDC (6 decimals) or DAI (18).
      await send([
        trade(sam, '100.25', '100250000'),
        swap(sam, '5', '2500000000000000000'),
        trade(tia, '40', '40000001'),
        trade(uma, '0.75', '750000'),
        trade(otto, '1000', '1000000000'),
      ]);
      await page.reload();
      await page.getByTestId('master-referred-volume').filter({ hasText: '$146' }).waitFor();
      const figures = await shownFigures();
      expect(figures.volume).toBe(usdUnits('146'));
      expect(figures.rowsVolume).toBe(figures.volume);
      expect(figures.earnings).toEqual({ USDC: 3_007_500n + 1_200_000n + 22_500n, DAI: 75_000_000_000_000_000n });
      expect(figures.rowsEarnings).toEqual(figures.earnings);
      // What the page shows is what the API says, digit for digit.
      const detail = (await stack.api.get(`${agencies()}/${await agencyIdOf(acme)}`, admin())).body;
      expect(figures.volume).toBe(usdUnits(detail.referred_volume_usd));
      expect(figures.earnings).toEqual(
        Object.fromEntries(
          detail.earnings.map((earning: { currency_name: string; amount: string }) => [earning.currency_name, BigInt(earning.amount)]),
        ),
      );

      await page.getByLabel('Sort by').selectOption('referred_volume');
      await page.waitForURL(/sort_by=referred_volume/);
      // The rows of the earlier sort stay until the new page answers: wait for both ends of the new order.
      await page.locator('tbody tr').first().getByRole('link', { name: sam.name }).waitFor();
      await page.locator('tbody tr').last().getByRole('link', { name: uma.name }).waitFor();
      expect(await page.locator('tbody tr td:first-child a').allInnerTexts()).toEqual([sam.name, tia.name, uma.name]);
      expect(await capturePage(page, 'admin-masters', '04-master-figures')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'unbinds one after confirming: it stays listed as former, and the figures still add up as later conversions pay the master nothing',
    async () => {
      const tiaRow = page.locator('tbody tr', { hasText: tia.name });
      await tiaRow.getByRole('button', { name: `Unbind ${tia.name}` }).click();
      // Nothing happens before the confirmation: a modal dialog, Cancel first.
      const dialog = page.getByRole('dialog', { name: `Unbind ${tia.name}?` });
      await dialog.waitFor();
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Cancel');
      expect(await capturePage(page, 'admin-masters', '05-unbind-confirm')).toEqual([]);
      expect(await page.getByTestId('master-sub-affiliates').innerText()).toBe('3');
      await dialog.getByRole('button', { name: 'Yes, unbind' }).click();
      await page.getByTestId('master-sub-affiliates').filter({ hasText: '2' }).waitFor();
      await tiaRow.getByText(/^former, until/).waitFor();

      stack.clock.advance(SECOND);
      const before = await shownFigures();
      await send([trade(tia, '60', '60000000'), trade(sam, '10', '10000000')]);
      await page.reload();
      await page.getByTestId('master-referred-volume').filter({ hasText: '$156' }).waitFor();
      const after = await shownFigures();
      expect(after.volume).toBe(before.volume + usdUnits('10'));
      expect(after.rowsVolume).toBe(after.volume);
      expect(after.rowsEarnings).toEqual(after.earnings);
      // Tia's own volume grew by the 60 she traded after the unbinding; what she brought the master did not.
      expect(await tiaRow.locator('td.brought-volume').innerText()).toBe('$40.00');
      expect(await tiaRow.locator('td').nth(5).innerText()).toBe('$100.00');
      expect(await capturePage(page, 'admin-masters', '06-after-unbind')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'changes the spread from now on, then removes the designation after confirming',
    async () => {
      await page.getByLabel('New spread (basis points)').fill('450');
      await page.getByRole('button', { name: 'Change spread' }).click();
      await page.getByTestId('master-spread').filter({ hasText: '4.5% (450 bps)' }).waitFor();
      expect(await page.getByRole('list', { name: 'Spread history, newest first' }).locator('li').allInnerTexts()).toEqual([
        expect.stringMatching(/^4\.5% from .+ \(in force\)$/),
        expect.stringMatching(/^3% from .+ to .+$/),
      ]);

      await page.getByRole('button', { name: 'Remove master designation' }).click();
      await page
        .getByRole('dialog', { name: `Remove master status from ${acme.name}?` })
        .getByRole('button', { name: 'Yes, remove' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Master affiliates' }).waitFor();
      await page.getByText(`${acme.name} is no longer a master affiliate; 2 sub-affiliates became regular affiliates.`).waitFor();
      // The list read before any master was designated is shown until its refetch answers.
      await page.locator('tbody tr', { hasText: rival.name }).waitFor();
      expect(await page.locator('tbody tr td:first-child a').allInnerTexts()).toEqual([rival.name]);
      expect(await capturePage(page, 'admin-masters', '07-master-removed')).toEqual([]);
      const master = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${acme.identifier}`, admin());
      expect(master.body.is_master).toBe(false);
      expect(usdUnits(master.body.referred_volume_usd)).toBe(usdUnits('156'));
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'adds an audience badge after the API refuses its image address, changes it and removes it',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audiences' }).click();
      await page.getByRole('link', { name: 'Champions' }).click();
      await page.getByRole('heading', { level: 1, name: 'Champions' }).waitFor();
      await page.getByLabel('Badge name').fill('Champion');
      await page.getByLabel('Badge image address').fill('http://cdn.example.com/champion.png');
      await page.getByRole('button', { name: 'Add badge' }).click();
      await page.locator('#badge-image-error').filter({ hasText: /\S/ }).waitFor();
      expect(await capturePage(page, 'admin-masters', '08-badge-refused')).toEqual([]);
      const badges = async () =>
        (await stack.db.query('SELECT name, description, image_url FROM audience.badges WHERE segment_id = $1', [audienceId])).rows;
      expect(await badges()).toEqual([]);

      await page.getByLabel('Badge image address').fill('https://cdn.example.com/champion.png');
      await page.getByLabel('Badge description').fill('Top 1%');
      await page.getByRole('button', { name: 'Add badge' }).click();
      await page.getByText('Badge “Champion” saved.').waitFor();
      await page.getByRole('button', { name: 'Save badge' }).waitFor();
      expect(await badges()).toEqual([{ name: 'Champion', description: 'Top 1%', image_url: 'https://cdn.example.com/champion.png' }]);

      await page.getByLabel('Badge name').fill('Grand champion');
      await page.getByLabel('Badge image address').fill('');
      await page.getByRole('button', { name: 'Save badge' }).click();
      await page.getByText('Badge “Grand champion” saved.').waitFor();
      expect(await badges()).toEqual([{ name: 'Grand champion', description: 'Top 1%', image_url: null }]);
      expect(await capturePage(page, 'admin-masters', '09-badge-saved')).toEqual([]);

      await page.getByRole('button', { name: 'Remove badge' }).click();
      await page.getByRole('dialog', { name: 'Remove the badge “Grand champion”?' }).getByRole('button', { name: 'Yes, remove' }).click();
      await page.getByText('Badge removed.').waitFor();
      await page.getByRole('button', { name: 'Add badge' }).waitFor();
      expect(await badges()).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway, on every page', () => {
    expect(foreignRequests).toEqual([]);
  });

  async function agencyIdOf(affiliate: Affiliate): Promise<string> {
    return (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}`, admin())).body.id as string;
  }
});
