import type { Browser, Page } from 'playwright-core';
import { evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';
import { capturePage, DESKTOP, openChromium, policyViolations, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin dashboard driven in Chromium as a person would, against the real stack: sign in,
 * create an audience (after the API refuses a bad condition), upload a CSV, find affiliates by
 * filter and sort, open one, set the program's referral link (with its live preview), decide applications in bulk. Each page is screenshotted at desktop and mobile width
 * (test-artifacts/admin/) and checked with axe-core.
 */
/** A step of a person's flow: several pages, each loaded, screenshotted twice and checked; slow on a loaded machine. */
const STEP_TIMEOUT_MS = 120_000;

describe('the admin dashboard in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  const applicants: Array<{ name: string; wallet: TestWallet }> = [];
  /** Every request the pages made elsewhere than the gateway: the bundle must load nothing from the internet. */
  const foreignRequests: string[] = [];
  /** What the gateway's Content-Security-Policy refused on the pages: nothing may be. */
  let violations: string[] = [];
  const affiliates = [
    { name: 'Ada Lovelace', region: 'DE', identifier: evmAddress(0xa1), code: 'ada_code' },
    { name: 'Blaise Pascal', region: 'FR', identifier: evmAddress(0xa2) },
    { name: 'Carl Gauss', region: 'DE', identifier: evmAddress(0xa3) },
    { name: 'Dorothy Vaughan', region: 'US', identifier: evmAddress(0xa4) },
    { name: 'Emmy Noether', region: 'US', identifier: evmAddress(0xa5) },
  ];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    for (const affiliate of affiliates) {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        key: project.keys.admin,
        body: { ...affiliate, identifier_type: 'evm_address' },
      });
      if (created.status !== 201) throw new Error(`affiliate not created: ${created.status} ${created.text}`);
      // One minute apart, so sorting by the time they joined has one answer.
      stack.clock.advance(60_000);
    }
    // Three applications from the affiliate portal, signed in with their wallets.
    for (const name of ['Grace Hopper', 'Hedy Lamarr', 'Ida Rhodes']) {
      const wallet = await newWallet();
      const token = await signIn(stack, wallet);
      const applied = await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, {
        key: token,
        body: { name, region: 'us' },
      });
      if (applied.status !== 201) throw new Error(`application not taken: ${applied.status} ${applied.text}`);
      applicants.push({ name, wallet });
      stack.clock.advance(60_000);
    }
    browser = await openChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    violations = policyViolations(page);
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const text = (selector: string) => page.locator(selector).first().innerText();

  it(
    'refuses a wrong key with the API’s message, then signs in with the admin key',
    async () => {
      await page.goto(`${stack.baseUrl}/app/`);
      await page.getByLabel('Project id').fill(project.id);
      await page.getByLabel('Admin API key').fill('not-a-key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(/^Could not sign in: .+/);
      expect(await capturePage(page, 'admin', '01-sign-in-refused')).toEqual([]);

      await page.getByLabel('Admin API key').fill(project.keys.admin);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // The first page is the home (test/e2e/admin-home.test.ts); its first link after the skip link is the home's own.
      await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/app/admin/home`);
      // The key is kept for this tab only.
      expect(await page.evaluate<string | null>("sessionStorage.getItem('referral.admin')")).toContain(project.keys.admin);
      // The keyboard starts at the skip link, then walks the navigation.
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Home');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Audiences');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
      await page.getByText('No audiences yet.').waitFor();
      expect(await capturePage(page, 'admin', '02-audiences-empty')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the API’s condition errors by path, then creates the audience',
    async () => {
      await page.getByRole('link', { name: 'New audience' }).click();
      await page.getByLabel('Name').fill('VIP');
      await page.getByRole('button', { name: 'JSON (advanced)' }).click();
      await page.getByLabel('Condition as JSON').fill('{ "all": [{ "metric": "volume_usd", "op": "bigger", "value": 1 }] }');
      expect(await text('.condition-tree')).toContain('volume_usd bigger 1');
      await page.getByRole('button', { name: 'Create audience' }).click();
      await page.getByRole('list', { name: 'Problems in the condition' }).waitFor();
      expect(await page.getByRole('list', { name: 'Problems in the condition' }).innerText()).toContain('condition.all[0].op');
      expect(await capturePage(page, 'admin', '03-audience-condition-errors')).toEqual([]);
      const segments = await stack.db.query('SELECT count(*)::int AS n FROM audience.segments WHERE project_id = $1', [project.id]);
      expect(segments.rows[0].n).toBe(0);

      await page.getByLabel('Condition as JSON').fill('');
      await page.getByRole('button', { name: 'Create audience' }).click();
      await page.getByRole('heading', { level: 1, name: 'VIP' }).waitFor();
      expect(page.url()).toMatch(/\/app\/admin\/audiences\/[0-9a-f-]{36}$/);
      expect(await text('[data-testid=entries-count]')).toBe('0');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'uploads a CSV in batches and shows what was added and what was skipped',
    async () => {
      const users = [
        ...affiliates.slice(0, 3).map((affiliate) => affiliate.identifier),
        ...Array.from({ length: 1_000 }, (_, i) => evmAddress(0x1000 + i)),
      ];
      // Five rows repeat an earlier one (one in another letter case): skipped, not added twice.
      const repeats = [users[0]!.toUpperCase().replace('0X', '0x'), users[1]!, users[500]!, users[999]!, users[1_002]!];
      const csv = ['identifier,identifier_type', ...users.map((user) => `${user},evm_address`), ...repeats.map((user) => `${user},evm_address`)].join(
        '\n',
      );
      await page.getByLabel('CSV file').setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByText('Added 1,003, skipped 5 already in the audience or repeated.').waitFor({ timeout: 60_000 });
      expect(
        await page
          .locator('#upload-progress')
          .evaluate((element) => [(element as unknown as { value: number }).value, (element as unknown as { max: number }).max]),
      ).toEqual([1_008, 1_008]);
      await page.locator('[data-testid=entries-count]', { hasText: '1,003' }).waitFor();
      const stored = await stack.db.query('SELECT count(*)::int AS n FROM audience.entries WHERE project_id = $1', [project.id]);
      expect(stored.rows[0].n).toBe(1_003);
      expect(await capturePage(page, 'admin', '04-audience-uploaded')).toEqual([]);

      await page.getByLabel('Identifier starts with').fill(affiliates[2]!.identifier.toUpperCase().replace('0X', '0x'));
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      expect(await page.locator('tbody td.identifier').allInnerTexts()).toEqual([affiliates[2]!.identifier]);
      expect(page.url()).toContain('search=');
      expect(await capturePage(page, 'admin', '05-audience-search')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'lists the affiliates, filters and sorts them with the URL following, and opens one',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Affiliates', exact: true }).click();
      await page.getByText('5 affiliates').waitFor();
      const names = () => page.locator('.grid-body [role=row] [role=cell]:first-child .affiliate-name').allInnerTexts();
      // Newest first by default.
      expect(await names()).toEqual(['Emmy Noether', 'Dorothy Vaughan', 'Carl Gauss', 'Blaise Pascal', 'Ada Lovelace']);
      expect(await capturePage(page, 'admin', '06-affiliates')).toEqual([]);

      await page.getByLabel('Region (country code)').fill('de');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('2 affiliates').waitFor();
      expect(new URL(page.url()).searchParams.get('region')).toBe('de');
      expect(await names()).toEqual(['Carl Gauss', 'Ada Lovelace']);

      await page.getByRole('columnheader', { name: 'Joined' }).getByRole('button').click();
      await page.waitForURL(/order=asc/);
      // The header shows the order of the rows on screen: read it once the re-sorted page has rendered.
      await page.locator('.grid-body [role=row]').first().getByText('Ada Lovelace').waitFor();
      expect(await page.getByRole('columnheader', { name: 'Joined' }).getAttribute('aria-sort')).toBe('ascending');
      expect(await names()).toEqual(['Ada Lovelace', 'Carl Gauss']);
      expect(await capturePage(page, 'admin', '07-affiliates-filtered-sorted')).toEqual([]);

      // The view survives a reload: it lives in the URL.
      await page.reload();
      await page.getByText('2 affiliates').waitFor();
      expect(await names()).toEqual(['Ada Lovelace', 'Carl Gauss']);
      expect(await page.getByLabel('Region (country code)').inputValue()).toBe('de');

      await page.getByRole('link', { name: /Ada Lovelace/ }).click();
      await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
      const memberships = page.getByRole('region', { name: 'Audiences and badges' });
      await memberships.getByRole('link', { name: 'VIP' }).waitFor();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      await page.locator('ol.history li', { hasText: 'Joined' }).waitFor();
      await page.getByText('Has referred nobody yet.').waitFor();
      expect(await capturePage(page, 'admin', '08-affiliate-detail')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows an affiliate’s codes with their clicks and conversion rate, charts its clicks per day, and sets a code’s rebate rate',
    async () => {
      // Two visitors' clicks of Ada's code today (stored lower-cased, one per tracking id and day), one of them yesterday too.
      const today = stack.clock.now().toISOString().slice(0, 10);
      const yesterday = new Date(stack.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      for (const [trackingId, day] of [
        ['visitor-1', today],
        ['visitor-2', today],
        ['visitor-1', yesterday],
      ]) {
        await stack.db.query(
          `INSERT INTO agency.code_clicks (project_id, code, tracking_id, day, first_at) VALUES ($1, 'ada_code', $2, $3::date, $3::date)`,
          [project.id, trackingId, day],
        );
      }
      await page.reload();
      const codes = page.getByRole('region', { name: 'Codes' });
      const row = codes.getByRole('row', { name: /ada_code/ });
      await row.waitFor();
      // Nobody referred yet: 0 of 3 clicks is a 0% conversion rate.
      expect(await row.getByRole('cell').allInnerTexts()).toEqual([
        'ada_code',
        expect.any(String),
        '0',
        '3',
        '0%',
        'none',
        expect.stringMatching(/^Edit rate…/),
      ]);
      expect(await text('[data-testid=figure-clicks]')).toBe('3');
      expect(await text('[data-testid=figure-conversion-rate]')).toBe('0%');

      // The chart of the last 30 days, and its figures as a table.
      const chart = page.getByRole('region', { name: 'Clicks, last 30 days' });
      await chart.getByText('3 clicks of all codes in these 30 days').waitFor();
      await chart.locator('summary', { hasText: 'Clicks per day' }).click();
      const perDay = chart.getByRole('table', { name: /Clicks of all codes per UTC day/ });
      expect(await perDay.locator('tbody td').allInnerTexts()).toEqual([yesterday, '1', today, '2']);

      await row.getByRole('button', { name: 'Edit rate… (ada_code)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rebate rate of ada_code' });
      await dialog.getByLabel('Rebate rate (whole percent, 0 to 20)').fill('7');
      await dialog.getByRole('button', { name: 'Save the rate' }).click();
      await row.getByRole('cell', { name: '7%' }).waitFor();
      const stored = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliates[0]!.identifier}`, { key: project.keys.readOnly });
      expect(stored.body.codes).toMatchObject([{ code: 'ada_code', rebate_rate: 0.07, clicks: 3 }]);
      expect(stored.body).toMatchObject({ clicks: 3, end_users: 0 });
      expect(await capturePage(page, 'admin', '08b-affiliate-codes')).toEqual([]);

      // The list: Ada's clicks and conversion rate, the rate's definition beside it.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Affiliates', exact: true }).click();
      await page.getByText('5 affiliates').waitFor();
      const ada = page.getByRole('row', { name: /Ada Lovelace/ });
      await ada.waitFor();
      const header = await page.getByRole('columnheader').allInnerTexts();
      const cells = await ada.getByRole('cell').allInnerTexts();
      expect(cells[header.findIndex((name) => name.startsWith('Clicks'))]).toBe('3');
      expect(cells[header.findIndex((name) => name.startsWith('Conversion rate'))]).toBe('0%');
      expect(await text('[data-testid=conversion-rate-help]')).toBe(
        'Conversion rate: users referred ÷ clicks, over all time; — when there are no clicks.',
      );
      expect(await capturePage(page, 'admin', '08c-affiliate-list-clicks')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'sets the program’s referral link: the API’s error at its field, a live preview of a code’s link, saved as previewed',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Program' }).click();
      await page.getByRole('heading', { level: 1, name: 'Program' }).waitFor();
      await page.getByText('The defaults: never changed.').waitFor();
      expect(await page.getByLabel('Link template').inputValue()).toBe('{program_url}?af={code}');
      // No program URL: no link yet, said so.
      expect(await page.getByTestId('link-preview').innerText()).toMatch(/no link yet/);

      // A URL with a query is refused by the API, next to its field; nothing is stored.
      await page.getByLabel('Program URL (where a referred person lands)').fill('https://shop.example/?ref=partners');
      expect(await page.getByTestId('link-preview').innerText()).toBe('https://shop.example/?ref=partners?af=EXAMPLE');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#program-url-error:not([hidden])').waitFor();
      expect(await page.getByLabel('Program URL (where a referred person lands)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#program-url-error').innerText()).toContain('no query or fragment');
      expect(await capturePage(page, 'admin', '12-program-url-refused')).toEqual([]);
      expect((await stack.api.get(`/api/v1/projects/${project.id}/program-settings`, { key: project.keys.admin })).body.program_url).toBeNull();

      // The preview follows every keystroke: the URL, then a template of the program's own.
      await page.getByLabel('Program URL (where a referred person lands)').fill('https://shop.example');
      expect(await page.getByTestId('link-preview').innerText()).toBe('https://shop.example?af=EXAMPLE');
      await page.getByLabel('Link template').fill('{program_url}/join?af={code}&utm_source=affiliates');
      expect(await page.getByTestId('link-preview').innerText()).toBe('https://shop.example/join?af=EXAMPLE&utm_source=affiliates');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await capturePage(page, 'admin', '13-program-link-saved')).toEqual([]);
      // What the API stored gives the link the preview showed (the portal copies the API's).
      const stored = await stack.api.get(`/api/v1/projects/${project.id}/program-settings`, { key: project.keys.admin });
      expect(stored.body).toMatchObject({
        program_url: 'https://shop.example',
        link_template: '{program_url}/join?af={code}&utm_source=affiliates',
        example_link: 'https://shop.example/join?af=EXAMPLE&utm_source=affiliates',
      });

      // Back to the default template.
      await page.getByRole('button', { name: 'Use the default template' }).click();
      expect(await page.getByTestId('link-preview').innerText()).toBe('https://shop.example?af=EXAMPLE');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Saved.').waitFor();
      expect((await stack.api.get(`/api/v1/projects/${project.id}/program-settings`, { key: project.keys.admin })).body.example_link).toBe(
        'https://shop.example?af=EXAMPLE',
      );

      // The attribution window and model: a window that is no number is not sent; a valid one is saved with the model.
      expect(await page.getByLabel('Attribution window (days, 1 to 365)').inputValue()).toBe('30');
      await page.getByLabel('Attribution window (days, 1 to 365)').fill('two weeks');
      expect(await page.locator('#attribution-window-error').innerText()).toContain('whole number of days');
      expect(await page.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
      await page.getByLabel('Attribution window (days, 1 to 365)').fill('14');
      await page.getByLabel('Click that refers').selectOption('last_click');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await capturePage(page, 'admin', '14-program-attribution-saved')).toEqual([]);
      expect((await stack.api.get(`/api/v1/projects/${project.id}/program-settings`, { key: project.keys.admin })).body).toMatchObject({
        attribution_window_days: 14,
        attribution_model: 'last_click',
      });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'decides applications in bulk: approves two into the audience, rejects one with a reason',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Applications' }).click();
      await page.getByLabel('Per page').selectOption('10');
      await page.waitForURL(/page_size=10/);
      await page.getByText('Page 1 of 1 (3 in all)').waitFor();
      expect(await page.locator('tbody .applicant-name').allInnerTexts()).toEqual(['Grace Hopper', 'Hedy Lamarr', 'Ida Rhodes']);
      expect(await capturePage(page, 'admin', '09-applications')).toEqual([]);

      await page.getByLabel('Select Grace Hopper').check();
      await page.getByLabel('Select Hedy Lamarr').check();
      await page.getByLabel('Into the audience').selectOption({ label: 'VIP' });
      await page.getByRole('button', { name: 'Approve 2 selected' }).click();
      await page.getByText('Approved Grace Hopper and Hedy Lamarr.').waitFor();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();

      await page.getByLabel('Select Ida Rhodes').check();
      await page.getByLabel('Decision').selectOption('reject');
      await page.getByLabel('Reason (shown to the applicant)').fill('Not a fit for this program');
      await page.getByRole('button', { name: 'Reject 1 selected' }).click();
      await page.getByText('No pending applications.').waitFor();

      await page.getByLabel('Status').selectOption('rejected');
      await page.getByText('rejected: Not a fit for this program').waitFor();
      expect(await capturePage(page, 'admin', '10-applications-rejected')).toEqual([]);

      const decided = await stack.db.query('SELECT name, status FROM agency.applications WHERE project_id = $1 ORDER BY name', [project.id]);
      expect(decided.rows).toEqual([
        { name: 'Grace Hopper', status: 'approved' },
        { name: 'Hedy Lamarr', status: 'approved' },
        { name: 'Ida Rhodes', status: 'rejected' },
      ]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'signs out with the API’s reason when the key is revoked while signed in',
    async () => {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
        key: project.keys.admin,
        body: { role: 'admin', name: 'Revoked soon' },
      });
      expect(created.status).toBe(201);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Project id').fill(project.id);
      await page.getByLabel('Admin API key').fill(created.body.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();

      const revoked = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${created.body.id}`, { key: project.keys.admin });
      expect(revoked.status).toBe(204);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audiences' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to the referral admin' }).waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(/^You were signed out: .+/);
      expect(await page.evaluate<string | null>("sessionStorage.getItem('referral.admin')")).toBeNull();
      expect(await capturePage(page, 'admin', '11-signed-out-revoked')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway, on every page, and met no refusal of its Content-Security-Policy', () => {
    expect(foreignRequests).toEqual([]);
    expect(violations).toEqual([]);
  });
});
