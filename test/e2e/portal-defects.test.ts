import type { Browser, Page } from 'playwright-core';
import { listChecks, newAffiliate } from '../claim/claim-check-stack';
import { conversionBody, createCurrency, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { TestClock } from '../helpers/clock';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { requireTaxInfo } from '../tax/tax-forms';
import { capturePage, closeBrowserAndStack, expectNoPageFaults, openSignInWalletPage } from './browser';
import { buildWebApp } from './web-build';

/**
 * Issue 26, the affiliate portal's defects, each driven in Chromium as an affiliate meets it: a
 * check in a currency whose claims the program has not set up (chain 8453, no ClaimManager in this
 * stack) is not offered to close and is explained in the program's words, not the claim service's
 * configuration; the tax wizard picks countries by name and takes dates as YYYY-MM-DD, asks for the
 * perjury statement before sending, and shows the status once a form is sent instead of starting
 * over; and a session that expires while a form is being filled offers to sign in again with the
 * wallet, the typed values kept. The session expires by the stack's clock (the browser's is the wall clock).
 */
describe('the affiliate portal’s defects (issue 26)', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  let address: string;
  const walletRequests: string[] = [];
  let pageErrors: string[] = [];
  let violations: string[] = [];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject({ clock: new TestClock(new Date()) }));
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
    const account = privateKeyToAccount(generatePrivateKey());
    address = account.address.toLowerCase();

    // The wallet is an affiliate whose referred user converted: an open check in USDC on chain 8453, which this stack's claim service has no ClaimManager for.
    const { code } = await newAffiliate(stack, project, address);
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, affiliate: { bps: 1_000 } });
    const settings = await stack.api.request('PUT', `/api/v1/projects/${project.id}/claim-settings`, {
      key: project.keys.admin,
      body: { project_address: randomEvmAddress() },
    });
    expect(settings.status).toBe(200);
    await sendAttributedConversions(stack, project, [conversionBody({ reward_base: '10000', referral_code: code })]);

    // The wallet: signs in only (no chain), with the account's key in this process.
    ({ browser, page, pageErrors, violations } = await openSignInWalletPage(account, walletRequests));
  }, 240_000);

  afterEach(() => expectNoPageFaults({ pageErrors, violations }));

  afterAll(() => closeBrowserAndStack(browser, stack));

  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
  const field = (label: string) => page.getByLabel(label, { exact: true });
  const countryPicker = (label: string) => page.getByRole('combobox', { name: label, exact: true });
  const taxRecords = async () =>
    (await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [project.id])).rows[0].n as number;
  const today = () => stack.clock.now().toISOString().slice(0, 10);

  it('offers no close for a currency whose claims are not open yet, and says so in the program’s words, not its configuration', async () => {
    // The list names, ahead of any close, the refusal a close would meet for the program's set-up.
    expect((await listChecks(stack, project, address)).results).toEqual([
      expect.objectContaining({ status: 'open', close_unavailable: 'CHAIN_NOT_CONFIGURED' }),
    ]);
    await page.goto(`${stack.baseUrl}/app/portal/${project.id}/`);
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    await nav('Claims').click();
    const row = page.getByTestId('claim-check');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.getByRole('note').innerText()).toBe('Claims in this currency are not open yet; your earnings are kept.');
    // A close the API would refuse is not offered, and nothing tells the affiliate to close a check.
    expect(await page.getByRole('button', { name: /Close/ }).count()).toBe(0);
    await page.getByText('Nothing to claim right now.', { exact: true }).waitFor();
    const shown = await page.locator('main').innerText();
    for (const internal of ['CLAIM_MANAGER_ADDRESSES', 'CHAIN_RPC_URLS', 'not configured', 'Close an open check'])
      expect(shown).not.toContain(internal);
    expect(await capturePage(page, 'portal-defects', '01-claims-not-open')).toEqual([]);
  });

  it('picks each country by its name from the ISO 3166 list and takes dates as the app writes them (YYYY-MM-DD)', async () => {
    await requireTaxInfo(stack, project);
    await nav('Tax').click();
    await page.getByText('This program needs your tax form before it can pay your affiliate earnings.').waitFor();
    await page.getByRole('button', { name: 'W-8BEN', exact: true }).click();
    await page.getByRole('heading', { name: 'Step 2 of 2: your W-8BEN' }).waitFor();

    // Countries are chosen, not typed: every assigned code, by name, the code beside it.
    const residence = countryPicker('Country');
    expect(await residence.locator('option').count()).toBe(250);
    expect(await residence.locator('option', { hasText: 'Germany (DE)' }).count()).toBe(1);
    await residence.selectOption({ label: 'Germany (DE)' });
    await countryPicker('Permanent address: country').selectOption('DE');

    // Dates are text in the ISO form every screen shows, said beside the field: not the browser's mm/dd/yyyy picker.
    for (const label of ['Date of birth', 'Date signed']) {
      expect(await field(label).getAttribute('type')).toBe('text');
      expect(await field(label).getAttribute('pattern')).toBe('\\d{4}-\\d{2}-\\d{2}');
    }
    await page.getByText('Year-month-day, e.g. 1990-12-09.').waitFor();
    await field('Date of birth').fill('1990-12-09');
    expect(await field('Date of birth').inputValue()).toBe('1990-12-09');
    await field('Legal name').fill('Grace Hopper');
    await field('My country of residence issues no tax id to me (optional)').check();
    await field('Permanent address: street and number').fill('Unter den Linden 1');
    await field('Permanent address: city').fill('Berlin');
    await field('Permanent address: postal code').fill('10117');
    await field('Signed by (full name)').fill('Grace Hopper');
    await field('Date signed').fill(today());
    expect(await capturePage(page, 'portal-defects', '02-tax-countries-dates')).toEqual([]);
  });

  it('asks for the perjury statement before sending: nothing is sent unticked, and the statement’s field says why', async () => {
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    await page.locator('#tax-certification-error:not([hidden])').waitFor();
    expect(await page.locator('#tax-certification-error').innerText()).toBe(
      'Tick the statement above to sign the form: it cannot be sent without it.',
    );
    const statement = page.getByRole('checkbox', { name: /^Under penalties of perjury, I certify that / });
    expect(await statement.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('tax-certification');
    expect(await taxRecords()).toBe(0);
    expect(await capturePage(page, 'portal-defects', '03-tax-not-certified')).toEqual([]);
    await statement.check();
    expect(await page.locator('#tax-certification-error').isHidden()).toBe(true);
  });

  it('offers to sign in again with the wallet when the session expires, the form being filled kept, and sends it then', async () => {
    // The session (15 minutes) ends while the affiliate fills the form: the API refuses it with 401.
    stack.clock.advance(16 * 60_000);
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    const expired = page.getByRole('alert').filter({ hasText: 'Your session has expired.' });
    await expired.waitFor();
    expect(await expired.innerText()).toContain('Sign in again with your wallet to go on; what you filled in stays here.');
    // No dead end: the page, the form and what was typed in it are all still there.
    expect(await field('Legal name').inputValue()).toBe('Grace Hopper');
    expect(await countryPicker('Country').inputValue()).toBe('DE');
    expect(await field('Date of birth').inputValue()).toBe('1990-12-09');
    expect(await field('Permanent address: street and number').inputValue()).toBe('Unter den Linden 1');
    expect(await page.getByRole('checkbox', { name: /^Under penalties of perjury/ }).isChecked()).toBe(true);
    expect(await taxRecords()).toBe(0);
    expect(await capturePage(page, 'portal-defects', '04-session-expired')).toEqual([]);

    const signs = walletRequests.filter((method) => method === 'personal_sign').length;
    await expired.getByRole('button', { name: 'Sign in again' }).click();
    await expired.waitFor({ state: 'detached' });
    expect(walletRequests.filter((method) => method === 'personal_sign')).toHaveLength(signs + 1);
    expect(await field('Legal name').inputValue()).toBe('Grace Hopper');
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    await page.getByText('Your W-8BEN was sent for review.').waitFor();
    expect(await taxRecords()).toBe(1);
  });

  it('shows the form’s status once sent, not the wizard starting over; a corrected form only on request', async () => {
    await page.getByText('Your W-8BEN is being reviewed.').waitFor();
    expect(await page.getByRole('heading', { name: 'Send your tax form' }).count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Step 1 of 2: which form fits you?' }).count()).toBe(0);
    expect(await capturePage(page, 'portal-defects', '05-tax-sent')).toEqual([]);

    await page.getByRole('button', { name: 'Send a corrected form' }).click();
    await page.getByRole('group', { name: 'Step 1 of 2: which form fits you?' }).waitFor();
    // The sent form's confirmation is not left beside a new one.
    expect(await page.getByText('Your W-8BEN was sent for review.').count()).toBe(0);
    await page.getByRole('button', { name: 'Keep the form I sent' }).click();
    await page.getByRole('button', { name: 'Send a corrected form' }).waitFor();
    expect(await page.getByRole('group', { name: 'Step 1 of 2: which form fits you?' }).count()).toBe(0);
  });
});
