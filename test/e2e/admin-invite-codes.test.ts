import type { Browser, Page } from 'playwright-core';
import { conversionBody, createCurrency, evmUser, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet } from '../helpers/wallet';
import { capturePage, closeBrowserAndStack, openDesktopPage, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';

/**
 * An affiliate's invite codes on its detail in the admin dashboard, in Chromium against the real
 * stack: listed with their uses against max_uses, and one disabled after confirming; then its four
 * referral levels with exact figures and its downline nested, walked by keyboard (screenshots in
 * test-artifacts/admin-invite-codes/, checked with axe-core).
 */
const STEP_TIMEOUT_MS = 120_000;

describe('invite codes in the admin dashboard, in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    ({ browser, page } = await openDesktopPage(stack.baseUrl, foreignRequests));
  }, 240_000);

  afterAll(() => closeBrowserAndStack(browser, stack));

  it(
    'lists an affiliate’s invite codes with their uses, and disables one after confirming',
    async () => {
      const affiliate = (await newWallet()).address;
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        key: project.keys.admin,
        body: { name: 'Ines Inviter', identifier: affiliate, identifier_type: 'evm_address' },
      });
      expect(created.status).toBe(201);
      const generated = await stack.api.post(
        `/api/v1/referral_codes?user_identifier=${affiliate}&user_identifier_type=evm_address&quantity=2&max_uses=5`,
        {
          key: project.keys.service,
        },
      );
      expect(generated.status).toBe(201);
      const [used, other] = (generated.body as Array<{ code: string }>).map((item) => item.code) as [string, string];
      const user = await newWallet();
      const message = `I am using referral code ${used}`;
      const referred = await stack.api.patch(`/api/v1/referral_codes/${used}/use?user_identifier=${user.address}&user_identifier_type=evm_address`, {
        key: project.keys.readOnly,
        body: { signature: await user.sign(message), signature_message: message },
      });
      expect(referred.status).toBe(201);

      await signInToAdmin(page, stack.baseUrl, project);
      await page.goto(`${stack.baseUrl}/app/admin/affiliates/evm_address/${affiliate}`);
      const table = page.getByRole('region', { name: 'Invite codes' });
      await table.getByText(used).waitFor();
      const usedRow = table.locator('tr', { hasText: used });
      expect(await usedRow.innerText()).toContain('1 / 5');
      expect(await table.locator('tr', { hasText: other }).innerText()).toContain('0 / 5');
      expect(await capturePage(page, 'admin-invite-codes', '01-invite-codes')).toEqual([]);

      await page.getByRole('button', { name: `Disable ${used}` }).click();
      await page.getByText(`Disable ${used}?`).waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
      await usedRow.getByText('1 / disabled').waitFor();
      expect(await page.getByRole('button', { name: `Disable ${used}` }).count()).toBe(0);
      const listed = await stack.api.get(`/api/v1/referral_codes?user_identifier=${affiliate}&user_identifier_type=evm_address`, {
        key: project.keys.readOnly,
      });
      expect(listed.body.results.find((code: { code: string }) => code.code === used)).toMatchObject({ max_uses: 0, uses: 1, remaining_uses: 0 });
      expect(listed.body.results.find((code: { code: string }) => code.code === other)).toMatchObject({ max_uses: 5 });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows an affiliate’s four referral levels (affiliates, volume, earnings) and its downline nested, each a link reached by keyboard',
    async () => {
      // Carol referred Bob's wallet, Bob referred Alice's: conversions at Alice pay Bob level 2 and Carol level 3.
      const usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
      await putTerms(stack, project, 'trade', {
        currency_id: usdc.id,
        affiliate: { bps: 1_000 },
        affiliate2: { bps: 500 },
        affiliate3: { fixed: '250000' },
      });
      const [carol, bob, alice] = await Promise.all(
        ['Carol', 'Bob', 'Alice'].map(async (name) => ({ name, identifier: (await newWallet()).address, code: `lv${name.toLowerCase()}` })),
      );
      for (const affiliate of [carol!, bob!, alice!]) {
        const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
          key: project.keys.admin,
          body: { name: affiliate.name, identifier: affiliate.identifier, identifier_type: 'evm_address', code: affiliate.code },
        });
        expect(created.status).toBe(201);
      }
      for (const [user, code] of [
        [bob!.identifier, carol!.code],
        [alice!.identifier, bob!.code],
      ] as const) {
        const referred = await stack.api.post('/api/v1/referrals', {
          key: project.keys.service,
          body: { user_identifier: user, user_identifier_type: 'evm_address', code },
        });
        expect(referred.status).toBe(201);
      }
      // reward_base 10,000 base units: Alice 10% (1,000), Bob 5% (500) and Carol 0.25 USDC at Alice; Bob 1,000 and Carol 500 at Bob.
      await sendAttributedConversions(stack, project, [
        conversionBody({ user: evmUser(), referral_code: alice!.code, volume_usd: '100.5', revenue_usd: '1.25', reward_base: '10000' }),
        conversionBody({ user: evmUser(), referral_code: bob!.code, volume_usd: '20', revenue_usd: '0.5', reward_base: '10000' }),
      ]);

      await page.goto(`${stack.baseUrl}/app/admin/affiliates/evm_address/${carol!.identifier}`);
      await page.getByRole('heading', { level: 1, name: 'Carol' }).waitFor();
      const levels = page.getByRole('region', { name: 'Referral levels' });
      await levels.getByTestId('referral-level').first().waitFor();
      expect(await levels.getByTestId('referral-level').allInnerTexts()).toEqual([
        'Level 1\t1\t$0.00\t$0.00\t0\tNothing yet',
        'Level 2\t1\t$20.00\t$0.50\t1\t0.0005 USDC',
        'Level 3\t0\t$100.50\t$1.25\t1\t0.25 USDC',
        'Level 4\t0\t$0.00\t$0.00\t0\tNothing yet',
      ]);
      // Bob at level 1, Alice nested under him; no sentence about a cut list (it holds them all).
      const downline = page.getByRole('list', { name: 'Affiliates referred below Carol' });
      expect(await downline.getByTestId('downline-node').evaluateAll((nodes) => nodes.map((node) => node.firstElementChild!.textContent))).toEqual([
        bob!.identifier,
        alice!.identifier,
      ]);
      const bobNode = downline.getByTestId('downline-node').first();
      expect(await bobNode.locator('> .subtle').innerText()).toBe('level 1 · $20.00 volume · 1 converting user of 2 referred users');
      expect(await bobNode.getByRole('list').getByTestId('downline-node').locator('> .subtle').innerText()).toBe(
        'level 2 · $100.50 volume · 1 converting user of 1 referred user',
      );
      expect(await page.getByTestId('downline-truncated').count()).toBe(0);
      expect(await capturePage(page, 'admin-invite-codes', '02-referral-levels')).toEqual([]);

      // Keyboard: Tab from Bob's link reaches Alice's, Enter opens her detail.
      await downline.getByRole('link', { name: bob!.identifier }).focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe(alice!.identifier);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Alice' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/app/admin/affiliates/evm_address/${alice!.identifier}`);
      await page.getByText('No affiliate was referred below Alice yet.').waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway', () => {
    expect(foreignRequests).toEqual([]);
  });
});
