import type { Browser, Page } from 'playwright-core';
import { createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { capturePage, DESKTOP, MOBILE, openChromium } from './browser';
import { buildWebApp } from './web-build';

/**
 * Issue 26 in Chromium, against the real stack: a read_only key is told what it can do and offered
 * no change anywhere; the applications queue forgets a rejection reason once used, says each
 * decision in a sentence for its own tab, fits at 1280 px and shows each application whole at
 * 375 px; a webhook every delivery of which got 404 reads "Failing", and its deliveries' statuses
 * are words. Seeded through the API; screenshots in test-artifacts/admin-access/. The test stack
 * retries a delivery 5 times, 50 ms apart doubling.
 */
const STEP_TIMEOUT_MS = 60_000;
const FLOW = 'admin-access';

describe('the admin dashboard for a read_only key, the applications queue and webhook health', () => {
  let stack: TestStack;
  let project: TestProject;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let webhookId = '';
  /** Affiliates created in this file (seeded, or approved applicants): each sends the webhook one affiliate.created delivery. */
  let affiliatesCreated = 0;
  const failingPath = '/gone';
  const applicants = ['Alice Applicant', 'Bob Applicant', 'Carol Applicant'];
  // Long enough to widen the table past 1280 px were it not wrapped.
  const message = 'I run a newsletter about decentralised finance with twelve thousand readers, and a podcast; '.repeat(3);

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    receiver = await WebhookReceiver.start();
    receiver.plan(failingPath, [{ status: 404 }]);
    const base = `/api/v1/projects/${project.id}`;
    const webhook = await stack.api.post(`${base}/webhooks`, {
      key: project.keys.admin,
      body: { url: receiver.url(failingPath), events: ['affiliate.created'] },
    });
    expect(webhook.status).toBe(201);
    webhookId = webhook.body.id;
    for (const index of [1, 2]) {
      stack.clock.advance(60_000);
      const created = await stack.api.post(`${base}/affiliates`, {
        key: project.keys.admin,
        body: { name: `Affiliate ${index}`, identifier: evmAddress(0xc0 + index), identifier_type: 'evm_address' },
      });
      expect(created.status).toBe(201);
      affiliatesCreated += 1;
    }
    for (const name of applicants) {
      const token = await signIn(stack, await newWallet());
      const applied = await stack.api.post(`${base}/affiliate-portal/application`, { key: token, body: { name, region: 'us', message } });
      expect(applied.status).toBe(201);
      stack.clock.advance(60_000);
    }
    await createSegment(stack, project, { name: 'Partners' });
    expect(await settledDeliveries()).toBe(2);
    browser = await openChromium();
    page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  /** How many deliveries the webhook has once there is one per affiliate created and every one failed for good (read through the API). */
  function settledDeliveries(): Promise<number> {
    return pollUntil(
      async () => {
        const list = await stack.api.get(`/api/v1/projects/${project.id}/webhooks/${webhookId}/deliveries`, { key: project.keys.admin });
        const settled = list.body.results.every((delivery: { status: string }) => delivery.status === 'failed');
        return settled && list.body.total_results === affiliatesCreated ? affiliatesCreated : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'every delivery failed' },
    );
  }
  const sections = () => page.getByRole('navigation', { name: 'Sections' });
  /** Signs in afresh (whatever an earlier test left in the tab's storage) with `key`. */
  async function signInWith(key: string): Promise<void> {
    await page.goto(`${stack.baseUrl}/app/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.getByLabel('Project id').fill(project.id);
    await page.getByLabel('Admin API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // An admin key lands on the home, a read_only key (which may not read the home's figures) on the audiences.
    await page.getByRole('heading', { level: 1, name: key === project.keys.readOnly ? 'Audiences' : 'Home' }).waitFor();
  }

  it(
    'tells a read_only key it can look, not change, and offers it no change on any page',
    async () => {
      await signInWith(project.keys.readOnly);
      await page.getByText('Read-only key: you can look, not change.').waitFor();
      // The sections whose reads need an admin key are not offered.
      expect(await sections().getByRole('link').allInnerTexts()).toEqual([
        'Audiences',
        'Affiliates',
        'Applications',
        'Program',
        'Payouts',
        'Webhooks',
      ]);
      await page.getByRole('link', { name: 'Partners' }).waitFor();
      expect(await page.getByRole('link', { name: 'New audience' }).count()).toBe(0);

      await page.getByRole('link', { name: 'Partners' }).click();
      await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
      expect(await page.getByRole('button').allInnerTexts()).toEqual(['Sign out', 'Search']);

      await sections().getByRole('link', { name: 'Applications' }).click();
      await page.getByText('Alice Applicant').waitFor();
      expect(await page.getByRole('form', { name: 'Decide the selected applications' }).count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await capturePage(page, FLOW, '01-read-only-applications')).toEqual([]);

      await sections().getByRole('link', { name: 'Program' }).click();
      await page.getByLabel('Program URL (where a referred person lands)').waitFor();
      expect(await page.getByLabel('Program URL (where a referred person lands)').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);

      await sections().getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('link', { name: receiver.url(failingPath) }).click();
      await page.getByRole('heading', { level: 2, name: 'Deliveries' }).waitFor();
      await page.locator('td.delivery-status').first().waitFor();
      expect(await page.getByRole('button', { name: 'Delete endpoint' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Resend/ }).count()).toBe(0);
      expect(await page.getByLabel('Endpoint URL').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
      expect(await capturePage(page, FLOW, '02-read-only-webhook')).toEqual([]);

      // A section only an admin key can read, reached by its address, says so instead of failing.
      await page.goto(`${stack.baseUrl}/app/admin/api-keys`);
      await page.getByText(/^The API keys section needs an admin key; you are signed in with a read-only key/).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'decides applications one by one: the reason cleared after each, the outcome a sentence for its tab; the table fits at 1280 and 375 px',
    async () => {
      await signInWith(project.keys.admin);
      expect(await page.getByText('Read-only key').count()).toBe(0);
      await sections().getByRole('link', { name: 'Applications' }).click();
      await page.getByText('Carol Applicant').waitFor();
      // Every column fits at 1280 px: the table does not scroll sideways.
      expect(
        await page.evaluate<boolean>("(() => { const box = document.querySelector('.table-scroll'); return box.scrollWidth <= box.clientWidth; })()"),
      ).toBe(true);

      await page.getByLabel('Select Alice Applicant').check();
      await page.getByLabel('Decision').selectOption('reject');
      await page.getByLabel('Reason (shown to the applicant)').fill('Not a fit for this program');
      await page.getByRole('button', { name: 'Reject 1 selected' }).click();
      await page.getByText('Rejected Alice Applicant.', { exact: true }).waitFor();
      // The reason was Alice's: the next application starts with none.
      expect(await page.getByLabel('Reason (shown to the applicant)').inputValue()).toBe('');
      await page.getByLabel('Select Bob Applicant').check();
      await page.getByLabel('Decision').selectOption('approve');
      await page.getByLabel('Into the audience').selectOption({ label: 'Partners' });
      await page.getByRole('button', { name: 'Approve 1 selected' }).click();
      await page.getByText('Approved Bob Applicant.', { exact: true }).waitFor();
      affiliatesCreated += 1;
      expect(await capturePage(page, FLOW, '03-applications-approved')).toEqual([]);

      // Another tab: the outcome stayed with the one it was made in.
      await page.getByLabel('Status').selectOption('rejected');
      await page.getByText('Rejected: Not a fit for this program').waitFor();
      const outcome = page.locator('section[aria-labelledby="applications-title"] > [role="status"]');
      expect(await outcome.innerText()).toBe('');

      // At 375 px each application shows whole: its status is on screen, not past a sideways scroll.
      await page.setViewportSize(MOBILE);
      const status = page.getByRole('cell', { name: 'Rejected: Not a fit for this program' });
      const box = await status.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(MOBILE.width);
      expect(await page.getByRole('cell', { name: /^Applied/ }).isVisible()).toBe(true);
      await page.setViewportSize(DESKTOP);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows a webhook whose every delivery got 404 as failing, and each delivery’s status in words',
    async () => {
      // One delivery per affiliate created (the approval above made one more), each failed after its 5 attempts.
      const count = await settledDeliveries();
      const health = `Failing: the last ${count} deliveries got HTTP 404`;
      await signInWith(project.keys.admin);
      await sections().getByRole('link', { name: 'Webhooks' }).click();
      const row = page.getByRole('row', { name: new RegExp(receiver.url(failingPath).replace(/[.]/g, '\\.')) });
      await row.getByText(health).waitFor();
      expect(await row.getByText('Enabled', { exact: true }).count()).toBe(0);

      await page.getByRole('link', { name: receiver.url(failingPath) }).click();
      await page.locator('.facts').getByText(health).waitFor();
      await page.locator('td.delivery-status').first().waitFor();
      expect(await page.locator('td.delivery-status').allInnerTexts()).toEqual(Array.from({ length: count }, () => 'Failed after 5 attempts'));
      expect(await capturePage(page, FLOW, '04-webhook-failing')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );
});
