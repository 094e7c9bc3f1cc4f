import type { Browser, Page } from 'playwright-core';
import { conversionBody, createCurrency, evmUser, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { TestClock } from '../helpers/clock';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { shortIdentifier } from '../../web/src/ui/format';
import { capturePage, closeBrowserAndStack, expectNoPageFaults, openSignInWalletPage, signInToAdmin } from './browser';
import { buildWebApp } from './web-build';

/**
 * Issue 26, names instead of ids: a master affiliate (Mona Master) and its sub-affiliate (Sam Sub),
 * whose referred user converted. The conversions list, its detail and the payouts leaderboard link
 * each affiliate to its page (the identifier shortened in a table, whole in the detail, always whole
 * in the title: those reads name nobody); the affiliates list names the master in the sub's Master
 * column. The portal's tabs are titled per screen, and its stats draw the earnings per day in bars. Screenshots in test-artifacts/names-and-titles/.
 */
const FLOW = 'names-and-titles';

describe('names and titles (issue 26)', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  let violations: string[] = [];
  let pageErrors: string[] = [];
  const mona = { identifier: randomEvmAddress(), name: 'Mona Master', code: `m${Date.now().toString(36)}` };
  const sam = { identifier: randomEvmAddress(), name: 'Sam Sub', code: `s${Date.now().toString(36)}` };
  const affiliatePath = (identifier: string) => `/app/admin/affiliates/evm_address/${identifier}`;

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject({ clock: new TestClock(new Date()) }));
    const admin = { key: project.keys.admin };
    const base = `/api/v1/projects/${project.id}`;
    for (const affiliate of [mona, sam]) {
      const created = await stack.api.post(`${base}/affiliates`, {
        ...admin,
        body: { identifier: affiliate.identifier, identifier_type: 'evm_address', name: affiliate.name, code: affiliate.code },
      });
      if (created.status !== 201) throw new Error(`affiliate not created: ${created.status} ${created.text}`);
    }
    const master = await stack.api.post(`${base}/agencies`, { ...admin, body: { user_identifier: mona.identifier, spread_bps: 100 } });
    if (master.status !== 201) throw new Error(`master not designated: ${master.status} ${master.text}`);
    const bound = await stack.api.post(`${base}/agencies/${master.body.id}/sub-affiliates`, {
      ...admin,
      body: { user_identifiers: [sam.identifier] },
    });
    if (bound.status !== 200) throw new Error(`sub-affiliate not bound: ${bound.status} ${bound.text}`);
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, affiliate: { bps: 1_000 } });
    // The portal's wallet is an affiliate too, whose referred user earned it half what Sam earned (Sam ranks first).
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
    const wallet = privateKeyToAccount(generatePrivateKey());
    const walletCode = `w${Date.now().toString(36)}`;
    const walletAffiliate = await stack.api.post(`${base}/affiliates`, {
      ...admin,
      body: { identifier: wallet.address.toLowerCase(), identifier_type: 'evm_address', name: 'Wally', code: walletCode },
    });
    if (walletAffiliate.status !== 201) throw new Error(`wallet affiliate not created: ${walletAffiliate.status} ${walletAffiliate.text}`);
    await sendAttributedConversions(stack, project, [
      conversionBody({ user: evmUser(), referral_code: sam.code, reward_base: '10000' }),
      conversionBody({ user: evmUser(), referral_code: walletCode, reward_base: '5000' }),
    ]);

    // The portal's wallet: signs in only, with the key in this process.
    ({ browser, page, pageErrors, violations } = await openSignInWalletPage(wallet));
    await signInToAdmin(page, stack.baseUrl, project);
  }, 240_000);

  afterEach(() => expectNoPageFaults({ pageErrors, violations }));

  afterAll(() => closeBrowserAndStack(browser, stack));

  /** A link's text, title and path: what a reader sees, hovers and follows. */
  const linkOf = async (link: ReturnType<Page['getByRole']>) => ({
    text: (await link.innerText()).trim(),
    title: await link.getAttribute('title'),
    href: await link.getAttribute('href'),
  });
  const linkTo = (identifier: string, name = shortIdentifier(identifier)) => ({ text: name, title: identifier, href: affiliatePath(identifier) });

  it('links the affiliate who referred each conversion, and its master, to their pages', async () => {
    await page.goto(`${stack.baseUrl}/app/admin/payouts/conversions`);
    const row = page.locator('tr.conversion-row', { has: page.getByRole('link', { name: shortIdentifier(sam.identifier) }) });
    const referredBy = row.getByRole('link', { name: shortIdentifier(sam.identifier) });
    expect(await linkOf(referredBy)).toEqual(linkTo(sam.identifier));
    await row.getByRole('button').click();
    const detail = page.getByRole('dialog');
    const facts = detail.locator('dl.facts');
    // The panel has room for the whole identifier.
    expect(await linkOf(facts.locator('div', { hasText: /^Affiliate/ }).getByRole('link'))).toEqual(linkTo(sam.identifier, sam.identifier));
    expect(await linkOf(facts.locator('div', { hasText: /^Master affiliate/ }).getByRole('link'))).toEqual(linkTo(mona.identifier, mona.identifier));
    // The affiliate's payout and the master's spread: each paid-to links to its affiliate page.
    const paidTo = detail.locator('tbody tr td:nth-child(2) a');
    expect((await paidTo.evaluateAll((links) => links.map((link) => link.getAttribute('href')))).sort()).toEqual(
      [affiliatePath(sam.identifier), affiliatePath(mona.identifier)].sort(),
    );
    expect(await capturePage(page, FLOW, '01-conversion-links')).toEqual([]);
  });

  it('links each ranked affiliate on the leaderboard to its page', async () => {
    await page.goto(`${stack.baseUrl}/app/admin/payouts/leaderboard`);
    const ranked = page.locator('tbody tr').first().getByRole('link');
    await ranked.waitFor();
    expect(await linkOf(ranked)).toEqual(linkTo(sam.identifier));
  });

  it('names the master of a sub-affiliate in the affiliates list, linked to its page', async () => {
    await page.goto(`${stack.baseUrl}/app/admin/affiliates`);
    const samRow = page.getByRole('row', { name: new RegExp(sam.name) });
    const master = samRow.getByRole('link', { name: mona.name });
    expect(await linkOf(master)).toEqual(linkTo(mona.identifier, mona.name));
    await master.click();
    await page.getByRole('heading', { level: 1, name: mona.name }).waitFor();
  });

  it('titles each portal screen', async () => {
    await page.goto(`${stack.baseUrl}/app/portal/${project.id}/`);
    await expectTitle('Sign in · Affiliate portal');
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    await expectTitle('Membership · Affiliate portal');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Claims' }).click();
    await expectTitle('Claims · Affiliate portal');
  });

  it('draws what the affiliate earned per day, per currency, in whole tokens', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Stats' }).click();
    await expectTitle('Stats · Affiliate portal');
    await page.getByRole('figure', { name: 'Earned in USDC per day' }).waitFor();
    // Ten percent of reward_base 5,000 is 500 base units: 0.0005 USDC, the total the bars add up to.
    expect(await page.getByTestId('stat-earned').innerText()).toBe('0.0005 USDC');
    expect(await capturePage(page, FLOW, '02-portal-stats')).toEqual([]);
  });

  /** The tab's title once the screen set it (in an effect after its first render). */
  const expectTitle = async (title: string) => {
    // A function, not a string (the app's CSP refuses eval); this project's types have no DOM, hence the cast.
    await page.waitForFunction((expected) => (globalThis as unknown as { document: { title: string } }).document.title === expected, title);
    expect(await page.title()).toBe(title);
  };
});
