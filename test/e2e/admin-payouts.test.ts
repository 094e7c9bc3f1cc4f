import type { Browser, Page } from 'playwright-core';
import { conversionBody, evmUser, referredUser, sendAttributedConversions, settled } from '../claim/claim-fixtures';
import { createSegment, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { pollUntil } from '../helpers/poll';
import { capturePage, DESKTOP, openAdminPage, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';
import { shortIdentifier } from '../../web/src/ui/format';

/**
 * The admin dashboard's payouts section in Chromium, against the real stack and the real job: add
 * a currency (after the API refuses a bad one, at its field), write payout terms with amounts in
 * whole tokens and a tier reward, delete terms after confirming, see the conversions the backend
 * sent (service_role key) with their status and movements, and read the leaderboard. Each page is
 * screenshotted at desktop and mobile width (test-artifacts/admin-payouts/) and checked with axe-core.
 * Then a conversion reversed in part from its detail (a double click takes it once; a share the
 * backend's own reversal left too large refused in words), and the reconciliation balanced.
 * Then the review: a review rule set, the conversion that breaks it approved from the review queue
 * (a read_only key is offered no decision), and an affiliate flagged and unflagged from its detail.
 */
const STEP_TIMEOUT_MS = 120_000;

describe('the admin payouts section in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  let browser: Browser;
  let page: Page;
  let vip: { id: string };
  let partners: { id: string };
  /** The referred conversion the conversions step sent: the reversal step reverses it. */
  let referred: { id: string };
  /** Who that conversion's user (`user`) was referred by (`affiliate`, with its code): the leaderboards step ranks them. */
  let referral: Awaited<ReturnType<typeof referredUser>>;
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    vip = await createSegment(stack, project, { name: 'VIP', tier_rank: 1 });
    partners = await createSegment(stack, project, { name: 'Partners' });
    ({ browser, page } = await openAdminPage(stack.baseUrl, project, foreignRequests));
  }, 240_000);

  afterAll(async () => {
    clients?.close();
    await browser?.close();
    await stack?.stop();
  });

  const pages = () => page.getByRole('navigation', { name: 'Payouts pages' });

  it(
    'adds a currency after showing the API’s refusals at their field',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payouts' }).click();
      await page.getByRole('heading', { level: 2, name: 'Currencies' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/app/admin/payouts/currencies`);
      await page.getByText('No currencies yet').waitFor();

      await page.getByLabel('Chain id').fill('8453');
      await page.getByLabel('Token contract address').fill('0x12');
      await page.getByLabel('Name', { exact: true }).fill('USDC');
      await page.getByLabel('Decimals').fill('6');
      await page.getByRole('button', { name: 'Add currency' }).click();
      await page.getByText(/^The currency was not added/).waitFor();
      // The address's own problem, next to the address.
      expect(await page.locator('#currency-address-error').innerText()).not.toBe('');
      expect(await page.getByLabel('Token contract address').getAttribute('aria-invalid')).toBe('true');
      expect(await capturePage(page, 'admin-payouts', '01-currency-refused')).toEqual([]);

      const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
      await page.getByLabel('Token contract address').fill(token);
      await page.getByRole('button', { name: 'Add currency' }).click();
      await page.getByText('Added USDC on chain 8453.').waitFor();
      await page.getByRole('cell', { name: token.toLowerCase() }).waitFor();

      // The same token again: the API's CURRENCY_EXISTS, in its words.
      await page.getByLabel('Chain id').fill('8453');
      await page.getByLabel('Token contract address').fill(token);
      await page.getByLabel('Name', { exact: true }).fill('USDC');
      await page.getByLabel('Decimals').fill('6');
      await page.getByRole('button', { name: 'Add currency' }).click();
      await page.getByText(/already has a currency at/).waitFor();
      expect(await capturePage(page, 'admin-payouts', '02-currencies')).toEqual([]);
      const stored = await stack.api.get(`/api/v1/projects/${project.id}/currencies`, { key: project.keys.admin });
      expect(stored.body.results).toEqual([
        expect.objectContaining({ chain_id: 8453, address: token.toLowerCase(), name: 'USDC', decimals: 6, type: 'erc20' }),
      ]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'writes payout terms in whole tokens, sent as exact base units, with a tier reward; deletes terms after confirming',
    async () => {
      await pages().getByRole('link', { name: 'Payout terms' }).click();
      await page.getByText('No payout terms yet.').waitFor();
      await page.getByRole('link', { name: 'New payout terms' }).click();
      await page.getByLabel('Conversion name').fill('trade');
      await page.getByLabel('Currency').selectOption({ label: 'USDC (chain 8453)' });
      const endUser = page.getByRole('group', { name: /End-user reward/ });
      await endUser.getByLabel('Fixed amount').check();
      await endUser.getByLabel('Amount in USDC (whole tokens)').fill('1.5');
      await endUser.getByText('Sent as 1,500,000 base units (6 decimals).').waitFor();
      const affiliate = page.getByRole('group', { name: /Affiliate reward/ });
      await affiliate.getByLabel('Share of reward_base').check();
      await affiliate.getByLabel('Basis points of reward_base').fill('1000');
      // The referral levels above the affiliate: level 2 a share, level 3 a fixed amount, level 4 nothing.
      const level2 = page.getByRole('group', { name: 'Level 2 reward', exact: true });
      await level2.getByLabel('Share of reward_base').check();
      await level2.getByLabel('Basis points of reward_base').fill('100');
      const level3 = page.getByRole('group', { name: 'Level 3 reward', exact: true });
      await level3.getByLabel('Fixed amount').check();
      await level3.getByLabel('Amount in USDC (whole tokens)').fill('0.5');
      // Only the Partners audience's members earn the affiliate reward; every end user may earn theirs.
      expect(await page.getByLabel('End users allowed to earn').inputValue()).toBe('');
      await page.getByLabel('Affiliates allowed to earn').selectOption({ label: 'Members of Partners' });
      await page.getByRole('button', { name: 'Add a tier reward' }).click();
      await page.getByLabel('Tier 1: audience').selectOption({ label: 'VIP (tier rank 1)' });
      const tierLevel2 = page.getByRole('group', { name: 'Tier 1: level 2 reward' });
      await tierLevel2.getByLabel('Share of reward_base').check();
      await tierLevel2.getByLabel('Basis points of reward_base').fill('50');
      // Rewards held two weeks, and each conversion's approved by an admin; a hold past a year is refused here.
      await page.getByLabel('Hold (days)').fill('400');
      await page.getByLabel(/Require approval/).check();
      // Caps in whole USDC: a window past a year is refused here too.
      await page.getByLabel('Per end user (lifetime)').fill('100');
      await page.getByLabel('Per affiliate, over a rolling window').fill('50.5');
      await page.getByLabel('Window (days)').fill('400');
      // More decimals than USDC has: refused here, before anything is sent.
      await page.getByRole('group', { name: 'Tier 1: affiliate reward' }).getByLabel('Amount in USDC (whole tokens)').fill('2.2500001');
      await page.getByRole('button', { name: 'Save terms' }).click();
      await page.getByText('At most 6 digits after the decimal point.').waitFor();
      await page.getByText('Enter a whole number of days from 0 to 365.').waitFor();
      await page.getByText('Enter a whole number of days from 1 to 365.').waitFor();
      await page.getByLabel('Hold (days)').fill('14');
      await page.getByLabel('Window (days)').fill('30');
      await page.getByRole('group', { name: 'Tier 1: affiliate reward' }).getByLabel('Amount in USDC (whole tokens)').fill('2.25');
      await page.getByRole('button', { name: 'Save terms' }).click();
      await page.getByText('Saved the terms of trade.').waitFor();
      await page.waitForURL(/\/payouts\/terms\/edit\/trade$/);
      expect(await capturePage(page, 'admin-payouts', '03-terms-editor')).toEqual([]);
      const terms = await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/trade`, { key: project.keys.admin });
      expect(terms.body).toMatchObject({
        end_user: { fixed: '1500000' },
        affiliate: { bps: 1000 },
        affiliate2: { bps: 100 },
        affiliate3: { fixed: '500000' },
        affiliate4: null,
        tiers: [{ audience_id: vip.id, affiliate: { fixed: '2250000' }, affiliate2: { bps: 50 }, affiliate3: null, affiliate4: null }],
        end_user_allowlist_audience_id: null,
        affiliate_allowlist_audience_id: partners.id,
        hold_days: 14,
        require_approval: true,
        caps: { per_conversion: null, per_end_user: '100000000', per_affiliate_window: { amount: '50500000', days: 30 } },
      });
      // The saved terms open with the allowlist, the hold and the approval chosen.
      expect(await page.getByLabel('Affiliates allowed to earn').inputValue()).toBe(partners.id);
      expect(await page.getByLabel('Hold (days)').inputValue()).toBe('14');
      expect(await level2.getByLabel('Basis points of reward_base').inputValue()).toBe('100');
      expect(await level3.getByLabel('Amount in USDC (whole tokens)').inputValue()).toBe('0.5');
      expect(await page.getByRole('group', { name: 'Level 4 reward', exact: true }).getByLabel('Nothing').isChecked()).toBe(true);
      expect(await tierLevel2.getByLabel('Basis points of reward_base').inputValue()).toBe('50');
      expect(await page.getByLabel(/Require approval/).isChecked()).toBe(true);
      expect(await page.getByLabel('Per affiliate, over a rolling window').inputValue()).toBe('50.5');
      // Back to paying at once, uncapped (the conversions below are paid under these terms).
      await page.getByLabel('Hold (days)').fill('0');
      await page.getByLabel(/Require approval/).uncheck();
      for (const cap of ['Per end user (lifetime)', 'Per affiliate, over a rolling window', 'Window (days)']) await page.getByLabel(cap).fill('');
      await page.getByRole('button', { name: 'Save terms' }).click();
      await pollUntil(
        async () => {
          const saved = await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/trade`, { key: project.keys.admin });
          const uncapped = saved.body.caps.per_end_user === null && saved.body.caps.per_affiliate_window === null;
          return saved.body.hold_days === 0 && saved.body.require_approval === false && uncapped ? true : undefined;
        },
        { timeoutMs: 10_000, what: 'the terms saved without hold, approval or caps' },
      );

      // Terms made elsewhere, deleted here once confirmed.
      const currencyId = terms.body.currency_id;
      expect(
        (
          await stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/bonus`, {
            key: project.keys.admin,
            body: { currency_id: currencyId, end_user: { fixed: '1' } },
          })
        ).status,
      ).toBe(201);
      await pages().getByRole('link', { name: 'Payout terms' }).click();
      const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
      await row('bonus').waitFor();
      expect(await row('trade').innerText()).toContain('1.5 USDC each');
      expect(await row('trade').innerText()).toContain('10 % of reward_base (1000 bps)');
      expect(await row('trade').getByTestId('terms-levels').innerText()).toBe('level 2: 1 % of reward_base (100 bps); level 3: 0.5 USDC each');
      expect(await row('bonus').getByTestId('terms-levels').innerText()).toBe('Level 1 only');
      expect(await capturePage(page, 'admin-payouts', '04-terms-list')).toEqual([]);
      await row('bonus').getByRole('link').click();
      await page.getByRole('button', { name: 'Delete these terms' }).click();
      await page.getByText('Delete the terms of bonus?').waitFor();
      expect(await capturePage(page, 'admin-payouts', '05-terms-delete-confirm')).toEqual([]);
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByRole('heading', { level: 2, name: 'Payout terms' }).waitFor();
      await row('trade').waitFor();
      await row('bonus').waitFor({ state: 'detached' });
      expect((await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/bonus`, { key: project.keys.admin })).status).toBe(404);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'lists the conversions the backend sent, filters them, and shows one’s status and movements',
    async () => {
      referral = await referredUser(clients, project);
      const { affiliate, user } = referral;
      // On the terms' affiliate allowlist: the affiliate earns.
      await clients.audience.addEntry({ projectId: project.id, segmentId: partners.id, user: affiliate });
      referred = conversionBody({ user: evmUser(user.identifier), reward_base: '10000' });
      const alone = conversionBody({ reward_base: '10000' });
      const signup = conversionBody({ name: 'signup' });
      for (const body of [referred, alone, signup]) {
        expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
        stack.clock.advance(1_000);
      }
      for (const body of [referred, alone, signup]) await settled(stack, project, body.id);

      await pages().getByRole('link', { name: 'Conversions' }).click();
      await page.getByText('3 conversions').waitFor();
      const statuses = () => page.locator('tbody .conversion-status').allInnerTexts();
      expect(await statuses()).toEqual(['no_terms', 'processed', 'processed']);
      expect(await capturePage(page, 'admin-payouts', '06-conversions')).toEqual([]);

      await page.getByLabel('Status').selectOption('processed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('2 conversions').waitFor();
      expect(new URL(page.url()).searchParams.get('status')).toBe('processed');

      await page.getByRole('button', { name: referred.id }).click();
      const detail = page.getByRole('region', { name: `Conversion ${referred.id}` });
      await detail.waitFor();
      const movements = await detail.locator('tbody tr').allInnerTexts();
      // 10 % of reward_base 10,000 is 1,000 base units: 0.001 USDC; the user's fixed 1.5 USDC; no cap cut either (—).
      expect(movements).toEqual([
        expect.stringMatching(/^Affiliate payout\s+0x[0-9a-f]{40}\s+0\.001 USDC\s+—\s+available\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+open/),
        expect.stringMatching(/^End-user payout\s+0x[0-9a-f]{40}\s+1\.5 USDC\s+—\s+available\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+open/),
      ]);
      expect(movements[0]).toContain(affiliate.identifier);
      expect(await detail.innerText()).toContain(affiliate.identifier);
      expect(await detail.innerText()).toContain(`Paid: a member of audience ${partners.id}`);
      expect(await capturePage(page, 'admin-payouts', '07-conversion-detail')).toEqual([]);

      // The view lives in the URL: a reload shows the same filter and the same conversion open.
      await page.reload();
      await page.getByRole('region', { name: `Conversion ${referred.id}` }).waitFor();
      expect(await page.getByLabel('Status').inputValue()).toBe('processed');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'picks every board: payouts over a range of UTC days with exact rows and its "as of", volume, revenue, referred users, referred volume',
    async () => {
      const F = referral.affiliate.identifier;
      const U = referral.user.identifier;
      const day0 = stack.clock.now().toISOString().slice(0, 10);
      // Two UTC days on, the referred user converts again (250.5 USD of volume, 12.25 of revenue): its affiliate earns 10 % of 20,000
      // base units (0.002 USDC), the user the terms' fixed 1.5 USDC. Nobody earns on the day between.
      stack.clock.advance(2 * 86_400_000);
      const day1 = new Date(stack.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      const day2 = stack.clock.now().toISOString().slice(0, 10);
      await sendAttributedConversions(stack, project, [
        conversionBody({ user: evmUser(U), reward_base: '20000', volume_usd: '250.5', revenue_usd: '12.25' }),
      ]);
      const asOf = `as of ${stack.clock.now().toISOString().replace('T', ' ').slice(0, 16)} UTC`;

      await pages().getByRole('link', { name: 'Leaderboards' }).click();
      await page.getByRole('heading', { level: 2, name: 'Leaderboards' }).waitFor();
      const rows = () => page.locator('tbody tr').allInnerTexts();
      const shows = async (cell: string) => page.getByRole('cell', { name: cell, exact: true }).waitFor();
      // The payouts board by default: affiliates, all time, in the project's one currency.
      await shows('0.003 USDC');
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t0.003 USDC\t2`]);
      expect(await page.getByTestId('board-as-of').innerText()).toBe(`1 ranked, ${asOf}`);
      expect(await capturePage(page, 'admin-payouts', '08-leaderboard-affiliates')).toEqual([]);

      // Only the last day: the second conversion's 0.002 USDC; only the first day: the first's 0.001; the day between: nobody.
      const range = page.getByRole('form', { name: 'Days counted' });
      await range.getByLabel(/^From/).fill(day2);
      await range.getByRole('button', { name: 'Show these days' }).click();
      await shows('0.002 USDC');
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t0.002 USDC\t1`]);
      expect(new URL(page.url()).searchParams.get('from')).toBe(day2);
      await range.getByLabel(/^From/).fill('');
      await range.getByLabel(/^To/).fill(day0);
      await range.getByRole('button', { name: 'Show these days' }).click();
      await shows('0.001 USDC');
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t0.001 USDC\t1`]);
      await range.getByLabel(/^From/).fill(day1);
      await range.getByLabel(/^To/).fill(day1);
      await range.getByRole('button', { name: 'Show these days' }).click();
      await page.getByText(`Nobody earned USDC as an affiliate on ${day1}.`).waitFor();
      // A range backwards, or not a day: said at its field, and the board asked nothing.
      await range.getByLabel(/^From/).fill(day2);
      await range.getByLabel(/^To/).fill(day0);
      await range.getByRole('button', { name: 'Show these days' }).click();
      await page.getByText('The last day comes before the first: swap them.').waitFor();
      await range.getByLabel(/^From/).fill('21/11/2026');
      await range.getByRole('button', { name: 'Show these days' }).click();
      await page.getByText('Enter a day as YYYY-MM-DD, or leave it empty to start at the first payout.').waitFor();
      expect(await range.getByLabel(/^From/).getAttribute('aria-invalid')).toBe('true');
      expect(new URL(page.url()).searchParams.get('from')).toBe(day1);
      expect(await capturePage(page, 'admin-payouts', '08b-leaderboard-range-refused')).toEqual([]);

      // End users over the last day: the referred user's second 1.5 USDC; all time, its 3 USDC above the other user's 1.5.
      await range.getByLabel(/^From/).fill(day2);
      await range.getByLabel(/^To/).fill('');
      await range.getByRole('button', { name: 'Show these days' }).click();
      await page.getByLabel('Ranked').selectOption('end_user');
      await shows('1.5 USDC');
      expect(await rows()).toEqual([`1\t${shortIdentifier(U)}\t1.5 USDC\t1`]);
      await range.getByRole('button', { name: 'All time' }).click();
      await shows('3 USDC');
      expect(await rows()).toEqual([`1\t${shortIdentifier(U)}\t3 USDC\t2`, expect.stringMatching(/^2\t0x[0-9a-f]{8}…[0-9a-f]{6}\t1\.5 USDC\t1$/)]);
      expect(await capturePage(page, 'admin-payouts', '09-leaderboard-end-users')).toEqual([]);

      // The other boards, from the agency's figures: the affiliate by what its referred user brought, with its code.
      const board = page.getByLabel('Board', { exact: true });
      await page.getByLabel('Ranked').selectOption('affiliate');
      await board.selectOption({ label: 'Volume' });
      await shows('$250.50');
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t${referral.code}\t$250.50`]);
      expect(await capturePage(page, 'admin-payouts', '09b-leaderboard-volume')).toEqual([]);
      await board.selectOption({ label: 'Revenue' });
      await shows('$12.25');
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t${referral.code}\t$12.25\t2`]);
      await board.selectOption({ label: 'Referred users' });
      await page.getByRole('columnheader', { name: 'Users referred' }).waitFor();
      expect(await rows()).toEqual([`1\t${shortIdentifier(F)}\t1`]);
      // The rows link to the affiliate.
      expect(await page.getByRole('link', { name: shortIdentifier(F) }).getAttribute('href')).toBe(`/app/admin/affiliates/evm_address/${F}`);
      expect(await capturePage(page, 'admin-payouts', '09c-leaderboard-referred-users')).toEqual([]);

      // Referred volume ranks nobody: it answers the users named, in their order, 0 for one that referred no one.
      const nobody = randomEvmAddress();
      await board.selectOption({ label: 'Referred volume' });
      await page.getByLabel(/^Users/).fill(`${F}\n${nobody}`);
      await page.getByRole('button', { name: 'Look up' }).click();
      await shows('$0.00');
      expect(await rows()).toEqual([`${F}\t$250.50`, `${nobody}\t$0.00`]);
      expect(await capturePage(page, 'admin-payouts', '09d-leaderboard-referred-volume')).toEqual([]);
      // The board and its users are in the URL: a reload shows the same.
      await page.reload();
      await shows('$250.50');
      expect(await board.inputValue()).toBe('referred-volume');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'reverses half of a conversion from its detail after confirming, once on a double click, lists the reversal, and refuses in words a share no longer left',
    async () => {
      await pages().getByRole('link', { name: 'Conversions' }).click();
      await page.getByRole('button', { name: referred.id }).click();
      const detail = page.getByRole('region', { name: `Conversion ${referred.id}` });
      await detail.getByText('Never reversed.').waitFor();
      await detail.getByRole('button', { name: 'Reverse…' }).click();
      const dialog = page.getByRole('dialog', { name: `Reverse conversion ${referred.id}?` });
      await dialog.waitFor();
      // All of it by default; no reason: refused here, at its field, before anything is sent.
      expect(await dialog.getByLabel('Share to reverse (%)').inputValue()).toBe('100');
      await dialog.getByLabel('Share to reverse (%)').fill('50');
      await dialog.getByRole('button', { name: 'Reverse', exact: true }).click();
      await dialog.getByText('Say why: the reason is kept on the reversal.').waitFor();
      await dialog.getByLabel(/^Reason/).fill('Order refunded');
      expect(await capturePage(page, 'admin-payouts', '15-reverse-confirm')).toEqual([]);
      // A double click sends the dialog's one reversal_id twice at most: the API takes it once.
      await dialog.getByRole('button', { name: 'Reverse', exact: true }).dblclick();
      await page.getByText('Reversed 50% of the conversion.').waitFor();
      await dialog.waitFor({ state: 'hidden' });
      const reversal = detail.getByTestId('reversal');
      await reversal.waitFor();
      expect(await reversal.count()).toBe(1);
      expect(await reversal.innerText()).toContain('Order refunded');
      // The movements were in open checks: half of each came out of them (0.0005 of the affiliate's 0.001 USDC, 0.75 of the user's 1.5).
      expect(await reversal.getByTestId('reversed-part').allInnerTexts()).toEqual([
        expect.stringMatching(/^Affiliate payout\s+0x[0-9a-f]{40}\s+0\.0005 USDC\s+0\.0005 USDC from the open check$/),
        expect.stringMatching(/^End-user payout\s+0x[0-9a-f]{40}\s+0\.75 USDC\s+0\.75 USDC from the open check$/),
      ]);
      expect(await capturePage(page, 'admin-payouts', '16-conversion-reversed')).toEqual([]);
      const stored = await stack.api.get(`/api/v1/conversions/${referred.id}`, { key: project.keys.admin });
      expect(stored.body.reversals).toEqual([
        expect.objectContaining({ share_bps: 5_000, reason: 'Order refunded', reversal_id: expect.stringMatching(/^dashboard-/) }),
      ]);

      // The backend reverses 30 % more on its own; the dialog, opened on what it read before, offers the 50 % it thought left.
      const backend = await stack.api.post(`/api/v1/conversions/${referred.id}/reverse`, {
        key: project.keys.service,
        body: { reversal_id: 'refund-2', reason: 'Partial refund', share_bps: 3_000 },
      });
      expect(backend.status).toBe(201);
      await detail.getByRole('button', { name: 'Reverse…' }).click();
      await dialog.waitFor();
      expect(await dialog.getByLabel('Share to reverse (%)').inputValue()).toBe('50');
      await dialog.getByLabel(/^Reason/).fill('Order refunded again');
      await dialog.getByRole('button', { name: 'Reverse', exact: true }).click();
      await dialog
        .getByText(
          'Too much: with the earlier reversals this would take back more than all of the conversion. At most 20% is left. Nothing was reversed.',
        )
        .waitFor();
      expect(await capturePage(page, 'admin-payouts', '17-reverse-refused')).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      // Read again after the refusal: the backend's reversal is listed too.
      await reversal.nth(1).waitFor();
      expect(await reversal.nth(1).innerText()).toContain('Partial refund');
      const after = await stack.api.get(`/api/v1/conversions/${referred.id}`, { key: project.keys.admin });
      expect(after.body.reversals.map((entry: { share_bps: number }) => entry.share_bps)).toEqual([5_000, 3_000]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the books per currency and kind, with their identities, balanced after the reversals',
    async () => {
      await pages().getByRole('link', { name: 'Reconciliation' }).click();
      await page.getByRole('heading', { level: 2, name: 'Reconciliation' }).waitFor();
      expect(await page.getByTestId('identities').innerText()).toContain('earned = capped + reversed + declined + pending + available');
      await page.getByTestId('books-state').waitFor();
      expect(await page.getByTestId('books-state').innerText()).toBe('Balanced: both identities hold on every line.');
      const books = page.getByRole('region', { name: 'USDC (chain 8453)' });
      const row = (label: string) => books.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
      // 80 % of the referred conversion came back: 0.0008 of the affiliate's 0.001 USDC, 1.2 of the user's 1.5.
      expect(await row('Reversed').innerText()).toMatch(/^Reversed\s+0\.0008 USDC\s+1\.2 USDC\s+0 USDC$/);
      expect(await books.getByTestId('line-state').allInnerTexts()).toEqual(['Balanced', 'Balanced', 'Balanced']);
      expect(await capturePage(page, 'admin-payouts', '18-reconciliation')).toEqual([]);
      const ledger = await stack.api.get(`/api/v1/projects/${project.id}/ledger/reconciliation`, { key: project.keys.admin });
      expect(ledger.body.balanced).toBe(true);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'sets a review rule, sees the conversions that break it in the review queue, approves one and declines one with a reason; a read_only key sees no decision',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Review' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      await page.getByText('No conversions wait for review.').waitFor();
      await page.getByRole('navigation', { name: 'Review pages' }).getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review settings' }).waitFor();
      await page.getByText('Every rule is off: never changed.').waitFor();
      await page.getByLabel('Review conversions whose reward is above a limit').check();
      // Not a whole number: refused here, at its field, before anything is sent.
      await page.getByLabel('Base units of the conversion’s currency').fill('1.5');
      await page.getByRole('button', { name: 'Save review settings' }).click();
      await page.getByText('Enter a whole number.').waitFor();
      await page.getByLabel('Base units of the conversion’s currency').fill('1000000');
      await page.getByText('Limit: 1,000,000 base units.').waitFor();
      await page.getByRole('button', { name: 'Save review settings' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await capturePage(page, 'admin-payouts', '10-review-settings')).toEqual([]);
      const settings = await stack.api.get(`/api/v1/projects/${project.id}/review-settings`, { key: project.keys.admin });
      expect(settings.body).toMatchObject({
        max_conversions_per_user_per_hour: null,
        min_seconds_from_referral_to_conversion: null,
        max_reward_per_conversion: '1000000',
      });

      // The trade terms pay the user 1.5 USDC (1,500,000 base units): above the limit, the conversion waits for review.
      const body = conversionBody({ reward_base: '10000' });
      const declined = conversionBody({ reward_base: '10000' });
      for (const sent of [body, declined]) {
        expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body: sent })).status).toBe(202);
        await settled(stack, project, sent.id);
      }
      await pollUntil(
        async () => {
          const queue = await stack.api.get(`/api/v1/projects/${project.id}/review?status=open`, { key: project.keys.admin });
          return queue.body.total_results === 2 ? true : undefined;
        },
        { timeoutMs: 10_000, what: 'the conversion in the review queue' },
      );

      await page.getByRole('navigation', { name: 'Review pages' }).getByRole('link', { name: 'Queue' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: body.id }) });
      await row.waitFor();
      expect(await row.innerText()).toContain('Its planned reward is 1,500,000 base units, above the limit of 1,000,000 base units.');
      expect(await row.innerText()).toContain('Waiting for a decision');
      await page.getByLabel(`Select conversion ${body.id}`).check();
      await page.getByText('1 selected.').waitFor();
      expect(await capturePage(page, 'admin-payouts', '11-review-queue')).toEqual([]);
      await page.getByRole('button', { name: 'Approve selected' }).click();
      await page.getByText(`${body.id}: approved. Its payouts are available, or wait for the rest of their hold.`).waitFor();
      // Decided: gone from the open conversions; the other one is declined, its reason asked in a confirmation.
      await row.waitFor({ state: 'detached' });
      await page.getByLabel(`Select conversion ${declined.id}`).check();
      await page.getByRole('button', { name: 'Decline selected…' }).click();
      await page.getByText('Decline 1 conversion?').waitFor();
      await page.getByLabel('Reason (kept on the declined payouts)').fill('A referral farm');
      expect(await capturePage(page, 'admin-payouts', '12-review-decline-confirm')).toEqual([]);
      await page.getByRole('button', { name: 'Decline', exact: true }).click();
      await page.getByText(`${declined.id}: declined. Its payouts will never be paid.`).waitFor();
      await page.getByText('No conversions wait for review.').waitFor();
      await page.getByLabel('Status').selectOption('decided');
      await row.waitFor();
      expect(await row.innerText()).toMatch(/Approved \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
      expect(new URL(page.url()).searchParams.get('status')).toBe('decided');
      expect(await capturePage(page, 'admin-payouts', '12-review-decided')).toEqual([]);
      const decided = await stack.api.get(`/api/v1/projects/${project.id}/review?status=decided`, { key: project.keys.admin });
      expect(decided.body.results).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ conversion_id: body.id, decision: 'approved' }),
          expect.objectContaining({ conversion_id: declined.id, decision: 'declined' }),
        ]),
      );
      expect(decided.body.total_results).toBe(2);
      const movements = await stack.api.get(`/api/v1/conversions/${declined.id}`, { key: project.keys.admin });
      expect(movements.body.movements).toEqual([expect.objectContaining({ status: 'declined' })]);

      // A read_only key: the API keeps the queue to admin keys; the page says so and offers no decision.
      const readOnly = await browser.newPage({ viewport: DESKTOP });
      try {
        await signInToAdmin(readOnly, stack.baseUrl, { id: project.id, keys: { admin: project.keys.readOnly } });
        await readOnly.goto(`${stack.baseUrl}/app/admin/review/queue`);
        await readOnly.getByText(/^The review section needs an admin key; you are signed in with a read-only key/).waitFor();
        expect(await readOnly.getByRole('button', { name: 'Approve selected' }).count()).toBe(0);
        expect(await readOnly.getByRole('button', { name: 'Decline selected…' }).count()).toBe(0);
      } finally {
        await readOnly.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'flags an affiliate with a reason after confirming, shows the flag, and unflags it',
    async () => {
      const { affiliate } = await referredUser(clients, project);
      await page.goto(`${stack.baseUrl}/app/admin/affiliates/evm_address/${affiliate.identifier}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Flag for review…' }).click();
      await page.getByText('Flag this affiliate for review?').waitFor();
      await page.getByLabel('Reason (kept in its history)').fill('Many sign-ups from one network');
      expect(await capturePage(page, 'admin-payouts', '13-flag-confirm')).toEqual([]);
      await page.getByRole('button', { name: 'Flag the affiliate' }).click();
      await page.getByText('Flagged since').waitFor();
      const facts = page.locator('dl.facts').first();
      expect(await facts.innerText()).toContain('flagged (Many sign-ups from one network)');
      await page.getByText('Flagged for review').waitFor();
      expect(await capturePage(page, 'admin-payouts', '14-affiliate-flagged')).toEqual([]);
      const flagged = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}`, { key: project.keys.admin });
      expect(flagged.body).toMatchObject({ status: 'flagged', flag_reason: 'Many sign-ups from one network' });

      await page.getByRole('button', { name: 'Unflag' }).click();
      await page.getByRole('button', { name: 'Flag for review…' }).waitFor();
      await page.getByText('Flag ended').waitFor();
      expect(await page.getByText('Flagged since').count()).toBe(0);
      const unflagged = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}`, { key: project.keys.admin });
      expect(unflagged.body).toMatchObject({ status: 'active', flagged_at: null });
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway, on every page', () => {
    expect(foreignRequests).toEqual([]);
  });
});
