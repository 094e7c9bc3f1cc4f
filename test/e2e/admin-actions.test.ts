import type { Browser, Page } from 'playwright-core';
import { evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { capturePage, openAdminPage } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin actions the API had and the dashboard lacked (issue 26), each done in Chromium as a
 * person would and checked through the API: an affiliate created, renamed, given a code, suspended
 * and reactivated, its tier protected and the protection ended; an audience built with the visual
 * condition builder, evaluated again, changed, a user removed from one, and one deleted; the project's
 * claim address set. Each form
 * first meets a refusal of the API, shown at its field with what was typed kept. The new forms are
 * screenshotted at desktop and mobile width (test-artifacts/admin-actions/) and checked with axe-core.
 */
const STEP_TIMEOUT_MS = 120_000;

describe('the admin actions in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];
  const affiliate = evmAddress(0xac1);
  const affiliatePath = () => `/api/v1/projects/${project.id}/affiliates/${affiliate}`;
  let tierId = '';

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    const tier = await stack.api.post(`/api/v1/projects/${project.id}/audiences`, {
      key: project.keys.admin,
      body: { name: 'Gold', tier_rank: 1 },
    });
    if (tier.status !== 201) throw new Error(`tier not created: ${tier.status} ${tier.text}`);
    tierId = tier.body.id;
    ({ browser, page } = await openAdminPage(stack.baseUrl, project, foreignRequests));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const status = (name: string) => page.getByRole('status').filter({ hasText: name });

  it(
    'creates an affiliate after the API refuses its identifier, then renames it and gives it a code',
    async () => {
      await page.getByRole('link', { name: 'Affiliates', exact: true }).click();
      await page.getByRole('link', { name: 'New affiliate' }).click();
      await page.getByLabel('Identifier', { exact: true }).fill('not-a-wallet');
      await page.getByLabel('Name', { exact: true }).fill('Ines Actions');
      await page.getByLabel(/^Region/).fill('de');
      await page.getByLabel(/^First code/).fill('ines_first');
      await page.getByRole('button', { name: 'Create affiliate' }).click();
      const identifier = page.getByLabel('Identifier', { exact: true });
      await page.locator('#affiliate-identifier-error').filter({ hasText: /\S/ }).waitFor();
      expect(await identifier.getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ines Actions');
      expect(await page.getByLabel(/^First code/).inputValue()).toBe('ines_first');
      expect(await capturePage(page, 'admin-actions', '01-affiliate-create-refused')).toEqual([]);

      await identifier.fill(affiliate);
      await page.getByRole('button', { name: 'Create affiliate' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ines Actions' }).waitFor();
      await status('Ines Actions is now an affiliate of the program.').waitFor();
      const created = await stack.api.get(affiliatePath(), { key: project.keys.admin });
      expect(created.body).toMatchObject({ name: 'Ines Actions', region: 'DE', status: 'active' });
      expect(created.body.codes.map((code: { code: string }) => code.code)).toEqual(['ines_first']);

      // Name and region: a region that is no country is refused at its field, then a good one saved.
      await page.getByLabel('Name', { exact: true }).fill('Ines Renamed');
      await page.getByLabel(/^Region/).fill('XYZ');
      await page.getByRole('button', { name: 'Save name and region' }).click();
      await page.locator('#edit-affiliate-region-error').filter({ hasText: /\S/ }).waitFor();
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ines Renamed');
      await page.getByLabel(/^Region/).fill('fr');
      await page.getByRole('button', { name: 'Save name and region' }).click();
      await status('Saved: the name and region are changed.').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Ines Renamed' }).waitFor();
      expect((await stack.api.get(affiliatePath(), { key: project.keys.admin })).body).toMatchObject({ name: 'Ines Renamed', region: 'FR' });

      // A code: one too short is refused at the field and kept; then one added.
      const code = page.getByLabel(/^New code/);
      await code.fill('ab');
      await page.getByRole('button', { name: 'Add code' }).click();
      await page.locator('#add-code-error').filter({ hasText: /\S/ }).waitFor();
      expect(await code.inputValue()).toBe('ab');
      expect(await capturePage(page, 'admin-actions', '02-affiliate-forms-refused')).toEqual([]);
      await code.fill('ines_second');
      await page.getByRole('button', { name: 'Add code' }).click();
      await status('The code ines_second was added; it refers from now on.').waitFor();
      await page.getByRole('region', { name: 'Codes' }).getByRole('cell', { name: 'ines_second', exact: true }).waitFor();
      const withCode = await stack.api.get(affiliatePath(), { key: project.keys.admin });
      expect(withCode.body.codes.map((item: { code: string }) => item.code).sort()).toEqual(['ines_first', 'ines_second']);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'suspends the affiliate with a reason after confirming, then reactivates it',
    async () => {
      await page.getByRole('button', { name: 'Suspend…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Suspend this affiliate?' });
      await dialog.getByRole('button', { name: 'Suspend the affiliate' }).click();
      await dialog.locator('.field-error').filter({ hasText: /\S/ }).waitFor();
      await dialog.getByLabel('Reason (kept in its history)').fill('Traffic from a bot farm');
      expect(await capturePage(page, 'admin-actions', '03-affiliate-suspend-dialog')).toEqual([]);
      await dialog.getByRole('button', { name: 'Suspend the affiliate' }).click();
      await status('Suspended: it earns nothing and its codes refer nobody until it is reactivated.').waitFor();
      expect((await stack.api.get(affiliatePath(), { key: project.keys.admin })).body).toMatchObject({
        status: 'suspended',
        suspension_reason: 'Traffic from a bot farm',
      });

      await page.getByRole('button', { name: 'Reactivate…' }).click();
      await page.getByRole('dialog', { name: 'Reactivate this affiliate?' }).getByRole('button', { name: 'Reactivate the affiliate' }).click();
      await status('Reactivated: it earns again from its next conversions, and its codes refer again.').waitFor();
      expect((await stack.api.get(affiliatePath(), { key: project.keys.admin })).body.status).toBe('active');
      await page.getByRole('button', { name: 'Suspend…' }).waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'protects the affiliate’s tier after refusing too many days, then ends the protection',
    async () => {
      await page.getByRole('combobox', { name: 'Tier', exact: true }).selectOption({ label: 'Gold (rank 1)' });
      const days = page.getByLabel('For how many days (1 to 365)');
      await days.fill('400');
      await page.getByRole('button', { name: 'Protect tier' }).click();
      await page.locator('#protect-days-error').filter({ hasText: /\S/ }).waitFor();
      expect(await days.inputValue()).toBe('400');
      expect(await capturePage(page, 'admin-actions', '04-tier-protection-refused')).toEqual([]);
      await days.fill('30');
      await page.getByRole('button', { name: 'Protect tier' }).click();
      await status('The tier is protected for 30 days.').waitFor();
      const protectedNow = await stack.api.get(affiliatePath(), { key: project.keys.admin });
      expect(protectedNow.body.tier_protection.days_remaining).toBe(30);
      expect(protectedNow.body.active_tier).toMatchObject({ name: 'Gold', rank: 1 });

      await page.getByRole('button', { name: 'End protection…' }).click();
      await page.getByRole('dialog', { name: 'End the tier protection now?' }).getByRole('button', { name: 'End protection' }).click();
      await status('The tier protection ended').waitFor();
      expect((await stack.api.get(affiliatePath(), { key: project.keys.admin })).body.tier_protection).toBeNull();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'builds a dynamic audience’s condition visually, the API’s problem shown at its field, and evaluates it again',
    async () => {
      await page.getByRole('link', { name: 'Audiences', exact: true }).click();
      await page.getByRole('link', { name: 'New audience' }).click();
      await page.getByLabel('Name').fill('Big traders');
      await page.getByRole('button', { name: 'Add a comparison' }).click();
      await page.getByLabel('Figure').selectOption({ label: 'Volume (USD)' });
      await page.getByLabel('Is', { exact: true }).selectOption({ label: 'at least' });
      await page.getByLabel('Value').fill('a lot');
      await page.getByLabel('Over the last days (optional)').fill('30');
      await page.getByRole('button', { name: 'Create audience' }).click();
      const value = page.getByLabel('Value');
      await page
        .locator('.condition-comparison .field-error')
        .filter({ hasText: /decimal number/ })
        .waitFor();
      expect(await value.getAttribute('aria-invalid')).toBe('true');
      expect(await value.inputValue()).toBe('a lot');
      expect(await capturePage(page, 'admin-actions', '05-condition-builder-refused')).toEqual([]);

      await value.fill('100.5');
      await page.getByRole('button', { name: 'Create audience' }).click();
      await page.getByRole('heading', { level: 1, name: 'Big traders' }).waitFor();
      const audienceId = page.url().split('/').pop()!;
      const stored = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${audienceId}`, { key: project.keys.admin });
      expect(stored.body.condition).toEqual({ all: [{ metric: 'volume_usd', op: 'gte', value: '100.5', window_days: 30 }] });

      await page
        .getByTestId('evaluation-state')
        .filter({ hasText: /^Evaluated / })
        .waitFor();
      // The run asked for now starts at a later instant than the first, so the page's sentence is known to be the new run's.
      stack.clock.advance(60_000);
      const again = stack.clock.now().toISOString();
      await page.getByRole('button', { name: 'Evaluate again' }).click();
      const evaluation = await pollUntil(
        async () => {
          const latest = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${audienceId}/evaluation`, { key: project.keys.admin });
          return latest.body.started_at === again && latest.body.status !== 'queued' && latest.body.status !== 'active' ? latest : undefined;
        },
        { timeoutMs: 30_000, what: 'the evaluation asked for again to finish' },
      );
      expect(evaluation.body.status).toBe('completed');
      await page
        .getByTestId('evaluation-state')
        .filter({ hasText: /users match, 0 added, 0 removed\.$/ })
        .waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'changes the audience (a taken tier rank refused at its field), its condition in the builder and as JSON, then deletes it after confirming',
    async () => {
      const audienceId = page.url().split('/').pop()!;
      await page.getByLabel('Audience name').fill('Biggest traders');
      const rank = page.getByLabel(/^Tier rank/);
      await rank.fill('1');
      await page.getByLabel('Value').fill('250');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page
        .locator('#audience-edit-tier-rank-error')
        .filter({ hasText: /another audience/ })
        .waitFor();
      expect(await rank.inputValue()).toBe('1');
      expect(await page.getByLabel('Audience name').inputValue()).toBe('Biggest traders');
      expect(await capturePage(page, 'admin-actions', '06-audience-change-refused')).toEqual([]);

      await rank.fill('2');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await status('Saved: the audience is changed, and a new evaluation of its condition has started.').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Biggest traders' }).waitFor();
      const changed = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${audienceId}`, { key: project.keys.admin });
      expect(changed.body).toMatchObject({
        name: 'Biggest traders',
        tier_rank: 2,
        condition: { all: [{ metric: 'volume_usd', op: 'gte', value: '250', window_days: 30 }] },
      });
      // The same condition as JSON, the advanced view.
      await page.getByRole('button', { name: 'JSON (advanced)' }).click();
      expect(JSON.parse(await page.getByLabel('Condition as JSON').inputValue())).toEqual(changed.body.condition);

      await page.getByRole('button', { name: 'Delete audience…' }).click();
      await page.getByRole('dialog', { name: 'Delete Biggest traders?' }).getByRole('button', { name: 'Delete the audience' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
      await status('The audience Biggest traders was deleted, with its users and badge.').waitFor();
      expect((await stack.api.get(`/api/v1/projects/${project.id}/audiences/${audienceId}`, { key: project.keys.admin })).status).toBe(404);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'removes a user from an audience after confirming',
    async () => {
      const [kept, removed] = [evmAddress(0xac2), evmAddress(0xac3)];
      for (const identifier of [kept, removed]) {
        const added = await stack.api.post(`/api/v1/projects/${project.id}/audiences/${tierId}/entries`, {
          key: project.keys.admin,
          body: { identifier, identifier_type: 'evm_address' },
        });
        expect(added.status).toBe(201);
      }
      await page.getByRole('link', { name: 'Gold' }).click();
      await page.getByRole('heading', { level: 1, name: 'Gold' }).waitFor();
      await page.getByRole('button', { name: `Remove ${removed}` }).click();
      await page
        .getByRole('dialog', { name: `Remove ${removed}?` })
        .getByRole('button', { name: 'Remove the user' })
        .click();
      await status(`${removed} was removed from the audience.`).waitFor();
      await page.getByRole('button', { name: `Remove ${removed}` }).waitFor({ state: 'detached' });
      const entries = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${tierId}/entries`, { key: project.keys.admin });
      expect(entries.body.results.map((entry: { identifier: string }) => entry.identifier)).toEqual([kept]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'sets the project’s claim address after the API refuses a malformed one',
    async () => {
      await page.getByRole('link', { name: 'Payouts', exact: true }).click();
      await page.getByRole('link', { name: 'Claims', exact: true }).click();
      await page.getByText('Not set yet: no claim check of the project can be closed until it is.').waitFor();
      const address = page.getByLabel(/^Project address/);
      await address.fill('0x1234');
      await page.getByRole('button', { name: 'Save the address' }).click();
      await page.locator('#claim-project-address-error').filter({ hasText: '0x followed by 40 hex digits' }).waitFor();
      expect(await address.inputValue()).toBe('0x1234');
      expect(await capturePage(page, 'admin-actions', '07-claim-settings-refused')).toEqual([]);
      const projectAddress = evmAddress(0xac4);
      await address.fill(projectAddress);
      await page.getByRole('button', { name: 'Save the address' }).click();
      await status('Saved.').waitFor();
      const stored = await stack.api.get(`/api/v1/projects/${project.id}/claim-settings`, { key: project.keys.admin });
      expect(stored.body.project_address.toLowerCase()).toBe(projectAddress.toLowerCase());
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway', () => {
    expect(foreignRequests).toEqual([]);
  });
});
