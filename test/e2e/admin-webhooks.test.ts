import type { Browser, Page } from 'playwright-core';
import { PUBLIC_EVENT_TYPES } from '../../services/webhooks/domain/public-events';
import { evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';
import { capturePage, DESKTOP, openChromium, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin dashboard's webhooks and API keys sections in Chromium, against the real stack and a
 * real HTTP receiver: an endpoint created with its secret shown once, an event delivered, a failed
 * delivery resent, a key created, shown once and revoked. Screenshots in test-artifacts/admin-webhooks/,
 * each page checked with axe-core. The test stack retries a delivery after 50 ms (doubling), 5 times.
 */
const STEP_TIMEOUT_MS = 120_000;
const FLOW = 'admin-webhooks';

describe('the admin dashboard’s webhooks and API keys in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];
  const hookPath = '/referral-events';
  let webhookId = '';
  let secret = '';
  let affiliates = 0;

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    receiver = await WebhookReceiver.start();
    browser = await openChromium();
    // Clipboard permissions, so the copy buttons are tested for what they put there.
    const context = await browser.newContext({ viewport: DESKTOP, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const base = () => `/api/v1/projects/${project.id}`;
  const sections = () => page.getByRole('navigation', { name: 'Sections' });
  /** An affiliate created through the API: one affiliate.created event. */
  async function createAffiliate(): Promise<void> {
    affiliates += 1;
    // A minute after the last one, so "newest first" has one answer (the test clock stands still otherwise).
    stack.clock.advance(60_000);
    const created = await stack.api.post(`${base()}/affiliates`, {
      key: project.keys.admin,
      body: { name: `Affiliate ${affiliates}`, identifier: evmAddress(0xb0 + affiliates), identifier_type: 'evm_address' },
    });
    expect(created.status).toBe(201);
  }
  /** The endpoint's newest delivery once `done` holds for it, read through the API. */
  async function newestDelivery(done: (delivery: { status: string; attempts: number }) => boolean, count: number, what: string) {
    return pollUntil(
      async () => {
        const list = await stack.api.get(`${base()}/webhooks/${webhookId}/deliveries`, { key: project.keys.admin });
        const [newest] = list.body.results;
        return list.body.total_results === count && newest && done(newest) ? newest : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what },
    );
  }
  /** Whether a secret is in the page's markup (an expression as text: it runs in the page). */
  const inMarkup = (value: string) => page.evaluate<boolean>(`document.documentElement.outerHTML.includes(${JSON.stringify(value)})`);
  /** Whether a secret is in the browser's storage. */
  const inStorage = (value: string) =>
    page.evaluate<boolean>(`JSON.stringify({ ...sessionStorage, ...localStorage }).includes(${JSON.stringify(value)})`);
  const secretIsAnywhere = async (value: string) => (await inMarkup(value)) || (await inStorage(value));

  it('documents the event names as the API’s enum, the list the service checks', async () => {
    const document = await stack.api.get('/openapi.json');
    const schema = document.body.paths['/api/v1/projects/{projectId}/webhooks'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.events.items.enum).toEqual([...PUBLIC_EVENT_TYPES]);
  });

  it(
    'creates an endpoint after the API refuses a bad one, and shows its signing secret once',
    async () => {
      await page.goto(`${stack.baseUrl}/app/`);
      await page.getByLabel('Project id').fill(project.id);
      await page.getByLabel('Admin API key').fill(project.keys.admin);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await sections().getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('No endpoints yet.').waitFor();
      expect(await capturePage(page, FLOW, '01-webhooks-empty')).toEqual([]);

      await page.getByRole('link', { name: 'New endpoint' }).click();
      // No event chosen: the API refuses, and says so at the events.
      await page.getByLabel('Endpoint URL').fill(receiver.url(hookPath));
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(/^The endpoint was not created: .+/);
      expect(await page.locator('#webhook-events-error').innerText()).not.toBe('');
      // Plain http to a public host: refused at the URL.
      await page.getByLabel('Endpoint URL').fill('http://hooks.example.com/referrals');
      await page.getByRole('checkbox', { name: 'affiliate.created' }).check();
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('#webhook-url-error', { hasText: /.+/ }).waitFor();
      expect(await page.locator('#webhook-events-error').isHidden()).toBe(true);
      expect(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');
      expect(await capturePage(page, FLOW, '02-webhook-refused')).toEqual([]);
      expect((await stack.api.get(`${base()}/webhooks`, { key: project.keys.admin })).body.total_results).toBe(0);

      await page.getByLabel('Endpoint URL').fill(receiver.url(hookPath));
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('heading', { name: 'Copy the signing secret now' }).waitFor();
      await page.getByText('You will not see it again.').waitFor();
      secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
      // Never kept where the browser keeps things: only on the screen.
      expect(await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })')).not.toContain(secret.slice('whsec_'.length));
      expect(await capturePage(page, FLOW, '03-webhook-secret-once')).toEqual([]);

      const [created] = (await stack.api.get(`${base()}/webhooks`, { key: project.keys.admin })).body.results;
      expect(created).toMatchObject({ url: receiver.url(hookPath), events: ['affiliate.created'], enabled: true });
      webhookId = created.id;
      await page.getByRole('button', { name: 'I have stored it: open the endpoint' }).click();
      await page.getByRole('heading', { level: 1, name: receiver.url(hookPath) }).waitFor();
      await page.getByText('No deliveries yet').waitFor();
      expect(await secretIsAnywhere(secret)).toBe(false);
      // The creation page was replaced in the history: Back leads to the list, not to the secret again.
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      expect(await secretIsAnywhere(secret)).toBe(false);
      await page.goForward();
      await page.getByRole('heading', { level: 1, name: receiver.url(hookPath) }).waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'lists the delivery of an event triggered through the API, signed with that secret',
    async () => {
      await createAffiliate();
      const delivery = await newestDelivery((item) => item.status === 'delivered', 1, 'the affiliate.created delivery');
      const [request] = receiver.at(hookPath);
      expect(request!.json.type).toBe('affiliate.created');
      expect(verifyStandardWebhook(secret, request!.headers, request!.body)).toBe(true);

      await page.getByRole('button', { name: 'Refresh' }).click();
      const row = page.locator(`tr[data-delivery-id="${delivery.id}"]`);
      await row.waitFor();
      expect(await row.locator('td').allInnerTexts()).toEqual([
        expect.stringContaining('affiliate.created'),
        'Delivered',
        '1',
        'HTTP 200',
        '—',
        expect.stringMatching(/ UTC$/),
        expect.stringMatching(/ UTC$/),
        'Resend',
      ]);
      expect(await capturePage(page, FLOW, '04-webhook-delivered')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows a delivery the receiver kept failing, resends it and shows it delivered',
    async () => {
      receiver.plan(hookPath, [{ status: 500 }]);
      await createAffiliate();
      const failed = await newestDelivery((item) => item.status === 'failed', 2, 'the failed delivery');
      expect(failed.attempts).toBe(5);
      const sentBefore = receiver.at(hookPath).length;

      await page.getByRole('button', { name: 'Refresh' }).click();
      const row = page.locator(`tr[data-delivery-id="${failed.id}"]`);
      await row.locator('td.delivery-status', { hasText: 'failed' }).waitFor();
      expect(await row.innerText()).toContain('HTTP 500');
      expect(await capturePage(page, FLOW, '05-webhook-failed')).toEqual([]);

      receiver.plan(hookPath, [{ status: 200 }]);
      await row.getByRole('button', { name: /^Resend / }).click();
      await page.getByText(new RegExp(`^Resent affiliate\\.created \\(event ${failed.event_id}\\): delivered`)).waitFor({ timeout: 30_000 });
      await row.locator('td.delivery-status', { hasText: 'delivered' }).waitFor();
      expect(await row.innerText()).toContain('HTTP 200');
      // The same event again: the same webhook-id, signed with the endpoint's secret.
      const resent = receiver.at(hookPath).slice(sentBefore);
      expect(resent.map((request) => request.headers['webhook-id'])).toEqual([failed.event_id]);
      expect(verifyStandardWebhook(secret, resent[0]!.headers, resent[0]!.body)).toBe(true);
      expect(await capturePage(page, FLOW, '06-webhook-resent')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'changes the endpoint’s events and state, and deletes another endpoint after a confirmation',
    async () => {
      await page.getByRole('checkbox', { name: 'audience.entry_added' }).check();
      await page.getByRole('checkbox', { name: 'Enabled (send events to this endpoint)' }).uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved.').waitFor();
      const read = await stack.api.get(`${base()}/webhooks/${webhookId}`, { key: project.keys.admin });
      expect(read.body).toMatchObject({ events: ['affiliate.created', 'audience.entry_added'], enabled: false });
      await page.locator('.facts', { hasText: 'Disabled' }).waitFor();

      const other = await stack.api.post(`${base()}/webhooks`, {
        key: project.keys.admin,
        body: { url: 'https://hooks.example.com/old', events: ['conversion.processed'] },
      });
      expect(other.status).toBe(201);
      await sections().getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('link', { name: 'https://hooks.example.com/old' }).click();
      await page.getByRole('button', { name: 'Delete endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
      await dialog.waitFor();
      expect(await capturePage(page, FLOW, '07-webhook-delete-confirm')).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await stack.api.get(`${base()}/webhooks/${other.body.id}`, { key: project.keys.admin })).status).toBe(200);

      await page.getByRole('button', { name: 'Delete endpoint' }).click();
      await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      expect(await page.locator('tbody td.identifier').allInnerTexts()).toEqual([receiver.url(hookPath)]);
      expect((await stack.api.get(`${base()}/webhooks/${other.body.id}`, { key: project.keys.admin })).status).toBe(404);
      expect(await capturePage(page, FLOW, '08-webhooks-list')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'creates a read_only key shown once, revokes it, and the API refuses it from then on',
    async () => {
      await sections().getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      // A project starts with one key of each role: admin, service_role, read_only, send:tracking_event.
      await page.getByText('Page 1 of 1 (4 in all)').waitFor();
      // The key this tab signed in with (kept in sessionStorage) is marked, and its secret is nowhere on the page.
      expect(await page.locator('tbody tr', { hasText: '(signed in with it)' }).locator('.key-name').allInnerTexts()).toEqual(['default admin key']);
      expect(await inMarkup(project.keys.admin)).toBe(false);
      expect(await capturePage(page, FLOW, '09-api-keys')).toEqual([]);

      await page.getByLabel('Name', { exact: true }).fill('Reporting');
      await page.getByRole('radio', { name: 'read_only' }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'Copy the API key now' }).waitFor();
      const key = await page.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
      expect(key).toMatch(/^rk_read_/);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
      expect((await stack.api.get(`${base()}/audiences`, { key })).status).toBe(200);
      expect(await capturePage(page, FLOW, '10-api-key-once')).toEqual([]);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await page.getByText('Page 1 of 1 (5 in all)').waitFor();
      expect(await secretIsAnywhere(key)).toBe(false);

      await page.getByRole('button', { name: 'Revoke Reporting' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “Reporting”?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).not.toContain('signed in with');
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('Revoked “Reporting”: it is refused from now on.').waitFor();
      await page.getByText('Page 1 of 1 (4 in all)').waitFor();
      const refused = await stack.api.get(`${base()}/audiences`, { key });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('UNAUTHENTICATED');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'warns before revoking the key the admin is signed in with, and shows the API’s refusal of the last admin key',
    async () => {
      await page.getByRole('button', { name: 'Revoke default admin key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “default admin key”?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain('This is the key you are signed in with.');
      expect(await capturePage(page, FLOW, '11-api-key-revoke-own')).toEqual([]);
      await dialog.getByRole('button', { name: 'Revoke and sign out' }).click();
      // The project's only admin key: the API refuses, the dialog says why, and the session goes on.
      await dialog.getByRole('alert').waitFor();
      expect(await dialog.getByRole('alert').innerText()).toContain('last admin key');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await stack.api.get(`${base()}/audiences`, { key: project.keys.admin })).status).toBe(200);
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'signs in with a second admin key, revokes that key after the warning, and is signed out',
    async () => {
      await page.getByLabel('Name', { exact: true }).fill('Second admin');
      await page.getByRole('radio', { name: 'admin' }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
      expect(key).toMatch(/^rk_admin_/);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Project id').fill(project.id);
      await page.getByLabel('Admin API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await sections().getByRole('link', { name: 'API keys' }).click();
      await page.getByText('Page 1 of 1 (5 in all)').waitFor();
      expect(await page.locator('tbody tr', { hasText: '(signed in with it)' }).locator('.key-name').allInnerTexts()).toEqual(['Second admin']);

      await page.getByRole('button', { name: 'Revoke Second admin' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “Second admin”?' });
      expect(await dialog.innerText()).toContain('This is the key you are signed in with.');
      await dialog.getByRole('button', { name: 'Revoke and sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to the referral admin' }).waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(/^You were signed out: .+/);
      expect((await stack.api.get(`${base()}/audiences`, { key })).status).toBe(401);
      expect((await stack.api.get(`${base()}/audiences`, { key: project.keys.admin })).status).toBe(200);
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway', () => {
    expect(foreignRequests).toEqual([]);
  });
});
