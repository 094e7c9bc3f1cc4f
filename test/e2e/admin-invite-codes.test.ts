import type { Browser, Page } from 'playwright-core';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet } from '../helpers/wallet';
import { capturePage, DESKTOP, openChromium, signInToAdmin, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * An affiliate's invite codes on its detail in the admin dashboard, in Chromium against the real
 * stack: listed with their uses against max_uses, and one disabled after confirming (screenshots in
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
    browser = await openChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

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

  it('loaded nothing from anywhere but the gateway', () => {
    expect(foreignRequests).toEqual([]);
  });
});
