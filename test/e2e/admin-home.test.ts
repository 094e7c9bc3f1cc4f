import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { conversionBody, createCurrency, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { TestClock } from '../helpers/clock';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { signedInAffiliate, w9 } from '../tax/tax-forms';
import { capturePage, DESKTOP, openChromium, signInToAdmin, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin home in Chromium, against the real stack: a project with two affiliates, conversions in
 * two currencies on days 10 days ago and today, a pending application, a tax form to review, a
 * conversion the review rules flagged and a webhook endpoint that answers 500. After sign-in the home
 * shows the project's name, the figures of the last 30 and 7 days, the queues, the navigation's counts
 * and the top affiliates by name; a typed range without conversions says what to do next; each screen
 * has its own tab title. Screenshots in test-artifacts/admin-home/, axe and width checked at both widths.
 */
const FLOW = 'admin-home';
const STEP_TIMEOUT_MS = 60_000;
const DAY_MS = 86_400_000;

describe('the admin home in a browser', () => {
  // The stack's clock starts at the real time, so the browser's "last 7 days" are the stack's days.
  const now = new Date();
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];

  /** An affiliate with a name and a code, and `users` users it referred, at the stack's clock. */
  async function affiliateWithUsers(name: string, users: number) {
    const affiliate = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
    const code = `h${randomUUID().slice(0, 8)}`;
    await clients.agency.createAffiliate({ projectId: project.id, user: affiliate, name, code });
    const referred = [];
    for (let i = 0; i < users; i++) {
      const user = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
      await clients.agency.createReferral({ projectId: project.id, user, code });
      referred.push(evmUser(user.identifier));
    }
    return referred;
  }

  async function convert(conversions: Array<Record<string, unknown>>) {
    const bodies = conversions.map((fields) => conversionBody(fields));
    const sent = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions: bodies } });
    if (sent.status !== 202) throw new Error(`conversions not taken: ${sent.status} ${sent.text}`);
    for (const body of bodies) await settled(stack, project, body.id);
  }

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject({ clock: new TestClock(now) }));
    clients = serviceClients(stack);
    receiver = await WebhookReceiver.start();
    receiver.plan('/hook', [{ status: 500 }]);
    const base = `/api/v1/projects/${project.id}`;
    const hook = await stack.api.post(`${base}/webhooks`, {
      key: project.keys.admin,
      body: { url: receiver.url('/hook'), events: ['affiliate.created'] },
    });
    if (hook.status !== 201) throw new Error(`webhook not created: ${hook.status} ${hook.text}`);

    const usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    const weth = await createCurrency(stack, project, { name: 'WETH', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { fixed: '2500000' } });
    await putTerms(stack, project, 'mint', { currency_id: weth.id, affiliate: { fixed: '10000000000000000' } });
    // A conversion paying more than 5 USDC's base units is flagged: the WETH one.
    const rules = await stack.api.request('PATCH', `${base}/review-settings`, {
      key: project.keys.admin,
      body: { max_reward_per_conversion: '5000000' },
    });
    if (rules.status !== 200) throw new Error(`review settings refused: ${rules.status} ${rules.text}`);

    stack.clock.set(new Date(now.getTime() - 11 * DAY_MS));
    const [ada, lin] = await affiliateWithUsers('Alice Capital', 2);
    stack.clock.set(new Date(now.getTime() - 10 * DAY_MS));
    await convert([{ name: 'trade', user: ada, volume_usd: '100.5' }]);
    stack.clock.set(new Date(now.getTime() - DAY_MS));
    const [kim] = await affiliateWithUsers('Bob Ventures', 1);
    stack.clock.set(now);
    await convert([
      { name: 'trade', user: ada, volume_usd: '1000' },
      { name: 'trade', user: lin, volume_usd: '250.25' },
      { name: 'mint', user: kim, volume_usd: '80' },
      { name: 'trade', volume_usd: '5' },
    ]);

    const applicant = await signedInAffiliate(stack, project);
    const applied = await stack.api.post(`${base}/affiliate-portal/application`, { key: await applicant.token(), body: { name: 'Grace Hopper' } });
    if (applied.status !== 201) throw new Error(`application not taken: ${applied.status} ${applied.text}`);
    const taxpayer = await signedInAffiliate(stack, project);
    const form = await taxpayer.submit(w9());
    if (form.status !== 201) throw new Error(`tax form not taken: ${form.status} ${form.text}`);
    await pollUntil(
      async () => {
        const hooks = await stack.api.get(`${base}/webhooks/${hook.body.id}/deliveries`, { key: project.keys.admin });
        return hooks.body.results[0]?.status === 'failed';
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'the webhook’s newest delivery to fail' },
    );

    browser = await openChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
  }, 240_000);

  afterAll(async () => {
    clients?.close();
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const sections = () => page.getByRole('navigation', { name: 'Sections' });
  const stat = (id: string) => page.getByTestId(`stat-${id}`).allInnerTexts();

  it(
    'opens on the home: the project’s name, the last 30 days’ figures, the queues and their counts on the navigation',
    async () => {
      await signInToAdmin(page, stack.baseUrl, project);
      expect(page.url()).toBe(`${stack.baseUrl}/app/admin/home`);
      await page.locator('.account .project', { hasText: project.name }).waitFor();
      expect(await page.locator('.account .project').innerText()).toBe('Test program');
      await page.getByTestId('stat-conversions').waitFor();
      expect(await page.title()).toBe('Home · Test program · Referral admin');
      expect(await page.getByTestId('period').innerText()).toBe(
        `Figures of the last 30 days: ${dayOf(now.getTime() - 29 * DAY_MS)} to ${dayOf(now.getTime())}, UTC days included.`,
      );
      expect(await stat('conversions')).toEqual(['5']);
      expect(await stat('volume')).toEqual(['$1,435.75']);
      expect(await stat('new-affiliates')).toEqual(['2']);
      expect(await stat('payouts')).toEqual(['7.5 USDC', '0.01 WETH']);

      const queues = page.getByRole('region', { name: 'Waiting for you' });
      expect(await queues.getByRole('listitem').allInnerTexts()).toEqual([
        '1 application to decide',
        '1 tax form to review',
        '1 flagged conversion to approve or decline',
        '1 webhook endpoint failing to deliver',
      ]);
      for (const name of ['Applications 1 waiting', 'Tax 1 waiting', 'Review 1 waiting', 'Webhooks 1 waiting']) {
        await sections().getByRole('link', { name, exact: true }).waitFor();
      }
      expect(await sections().getByRole('link', { name: 'Affiliates', exact: true }).count()).toBe(1);
      expect(await capturePage(page, FLOW, '01-home-30-days')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the last 7 days: daily bars with each currency in its tooltip, and the top affiliates by name',
    async () => {
      await page.getByRole('navigation', { name: 'Period' }).getByRole('link', { name: 'Last 7 days' }).click();
      await page.getByTestId('period').filter({ hasText: 'the last 7 days' }).waitFor();
      await page.getByTestId('stat-conversions').filter({ hasText: /^4$/ }).waitFor();
      expect(await stat('volume')).toEqual(['$1,335.25']);
      expect(await stat('new-affiliates')).toEqual(['1']);
      expect(await stat('payouts')).toEqual(['5 USDC', '0.01 WETH']);
      expect(page.url()).toMatch(/\/app\/admin\/home\?days=7$/);

      // A bar for the one day with a WETH payout, none drawn for the days without (no line joining them); its tooltip says the exact amount in WETH.
      const weth = page.getByRole('figure', { name: 'Payouts per day (WETH)' });
      await weth.locator('.recharts-bar-rectangle path').first().waitFor();
      expect(await weth.locator('.recharts-bar-rectangle').count()).toBe(1);
      expect(await weth.locator('.recharts-line, .recharts-area').count()).toBe(0);
      const bar = weth.locator('.recharts-bar-rectangle path');
      // The one amount is the scale's top, whatever its size (0.01 of a token is not drawn as a sliver against a whole-number axis).
      expect(Number(await bar.getAttribute('height'))).toBeGreaterThan(100);
      await bar.hover();
      await weth.locator('.recharts-tooltip-wrapper', { hasText: '0.01 WETH' }).waitFor();
      expect(await weth.locator('.recharts-tooltip-wrapper').innerText()).toContain(`${dayOf(now.getTime())} (UTC)`);

      await page.locator('summary', { hasText: 'Figures per day' }).click();
      const days = page.getByRole('region', { name: 'Figures per day', exact: true });
      expect(await days.getByRole('row').allInnerTexts()).toEqual([
        expect.stringMatching(/^Day\s+Conversions\s+Volume\s+Payouts$/),
        expect.stringMatching(new RegExp(`^${dayOf(now.getTime())}\\s+4\\s+\\$1,335.25\\s+5 USDC, 0.01 WETH$`)),
      ]);

      const top = page.getByRole('region', { name: 'Top affiliates by volume', exact: true });
      expect(await top.getByRole('row').allInnerTexts()).toEqual([
        expect.stringMatching(/^Affiliate\s+Conversions\s+Volume$/),
        expect.stringMatching(/^Alice Capital\s+2\s+\$1,250.25$/),
        expect.stringMatching(/^Bob Ventures\s+1\s+\$80.00$/),
      ]);
      expect(await capturePage(page, FLOW, '02-home-7-days')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'says what to do next for days without conversions, and checks a typed range',
    async () => {
      await page.getByLabel('From (UTC day, YYYY-MM-DD)').fill(dayOf(now.getTime() - 60 * DAY_MS));
      await page.getByLabel('To (UTC day, included)').fill(dayOf(now.getTime() - 90 * DAY_MS));
      await page.getByRole('button', { name: 'Show these days' }).click();
      await page.locator('#home-to-error', { hasText: 'The last day comes before the first: swap them.' }).waitFor();

      await page.getByLabel('To (UTC day, included)').fill(dayOf(now.getTime() - 40 * DAY_MS));
      await page.getByRole('button', { name: 'Show these days' }).click();
      await page.getByTestId('stat-conversions').filter({ hasText: /^0$/ }).waitFor();
      expect(await page.getByText(/^No conversions in .+ Conversions arrive when your backend reports them/).count()).toBe(1);
      expect(await page.getByText(/^No conversion was attributed to an affiliate in/).count()).toBe(1);
      expect(await stat('payouts')).toEqual(['None']);
      // The queues do not depend on the period.
      expect(await sections().getByRole('link', { name: 'Applications 1 waiting' }).count()).toBe(1);
      expect(await capturePage(page, FLOW, '03-home-empty-range')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'gives each screen its own tab title, and the counts follow a decision taken in the app',
    async () => {
      await sections().getByRole('link', { name: 'Applications' }).click();
      await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
      expect(await page.title()).toBe('Applications · Test program · Referral admin');
      await page.getByLabel('Select Grace Hopper').check();
      await page.getByLabel('Decision').selectOption('reject');
      await page.getByLabel('Reason (shown to the applicant)').fill('Not a fit for this program');
      await page.getByRole('button', { name: 'Reject 1 selected' }).click();
      await page.getByText('No pending applications.').waitFor();
      await sections().getByRole('link', { name: 'Applications', exact: true }).waitFor();

      const titles: string[] = [];
      for (const [link, heading] of [
        ['Payouts', 'Payouts'],
        ['Tax', 'Tax forms'],
        ['Webhooks', 'Webhooks'],
      ] as const) {
        await sections().getByRole('link', { name: link }).click();
        await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
        titles.push(await page.title());
      }
      expect(titles).toEqual([
        'Currencies · Test program · Referral admin',
        'Tax forms · Test program · Referral admin',
        'Webhooks · Test program · Referral admin',
      ]);
      expect(foreignRequests).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );
});
