import type { Browser, Page } from 'playwright-core';
import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { type ClaimChain, type ClaimProject, claimProject, CONFIRMATIONS, startClaimStack } from '../claim/claim-check-stack';
import { conversionBody, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { TestClock } from '../helpers/clock';
import { createSegment, randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { adminPaths, requireTaxInfo, TIN } from '../tax/tax-forms';
import { capturePage, closeBrowserAndStack, connectTestWallet, DESKTOP, expectNoPageFaults, openChromium, openWatchedPage } from './browser';
import { buildWebApp } from './web-build';
import { formatCurrencyAmount, formatUsd } from '../../web/src/ui/format';

/**
 * The affiliate portal driven in Chromium as a person would, against the real stack and a
 * ClaimManager on the in-process EVM. The wallet is a viem local account behind an injected
 * `window.ethereum`: the page's requests go to this process (exposeBinding), which signs with the
 * account and forwards everything else to the chain's JSON-RPC. The affiliate signs in, applies,
 * adds a code (no link to copy until the program has a URL, then the program's link with `af`),
 * earns, sees its check held by the tax gate, sends a W-8BEN (after the API names a wrong field), is
 * approved by an admin, closes and claims on chain; then an affiliate an admin made, which never
 * applied, sees its membership and its codes' links; then the first affiliate earns under terms with a
 * hold and under terms that need the program's approval, and sees both amounts pending (the held one
 * with its date), then the held one available once the clock passes it and the release job runs; then closes it, and once a
 * refund reverses it reads its debt in words, with the open check holding nothing not offered to close. Each page is screenshotted at
 * desktop and mobile width (test-artifacts/portal/) and checked with axe-core.
 */
describe('the affiliate portal in a browser', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;
  let browser: Browser;
  let page: Page;
  /** The affiliate's wallet: a funded chain account (it pays its own claim transaction's gas). */
  let wallet: ClaimChain['relayer'];
  const walletRequests: string[] = [];
  /** The chain the wallet is on: Ethereum mainnet until the claim page asks it to switch to the voucher's chain. */
  let walletChain = 1;
  /** Uncaught errors in the page: none may happen. */
  let pageErrors: string[] = [];
  let violations: string[] = [];

  beforeAll(async () => {
    await buildWebApp();
    // The browser's clock is the wall clock: the stack's starts there too, so session expiry agrees.
    // The release of held movements runs every 100 ms here (60 s by default), so it follows the test clock at once.
    ({ stack, claimChain } = await startClaimStack({
      clock: new TestClock(new Date()),
      serviceEnv: { claim: { CLAIM_RELEASE_EVERY_MS: '100' } },
    }));
    project = await claimProject(stack, claimChain);
    await requireTaxInfo(stack, project);
    wallet = claimChain.relayer;
    browser = await openChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    // The codes page copies links with the Clipboard API: the test reads back what it copied.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await connectTestWallet(context, async (request) => {
      walletRequests.push(request.method);
      switch (request.method) {
        case 'eth_chainId':
          return `0x${walletChain.toString(16)}`;
        case 'wallet_switchEthereumChain': {
          const { chainId } = request.params![0] as { chainId: string };
          if (Number(chainId) !== claimChain.chain.chainId) throw new Error(`unknown chain ${chainId}`);
          walletChain = Number(chainId);
          return null;
        }
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [wallet.address];
        case 'personal_sign':
          return wallet.account.signMessage({ message: { raw: request.params![0] as Hex } });
        case 'eth_sendTransaction': {
          const transaction = request.params![0] as { to: Hex; data: Hex; chainId: string };
          if (Number(transaction.chainId) !== walletChain || walletChain !== claimChain.chain.chainId)
            throw new Error(`wrong chain ${transaction.chainId}`);
          return wallet.wallet.sendTransaction({ to: transaction.to, data: transaction.data });
        }
        default:
          return claimChain.chain.provider.request({ method: request.method, params: request.params ?? [] });
      }
    });
    ({ page, pageErrors, violations } = await openWatchedPage(context));
  }, 240_000);

  // The portal works under the gateway's Content-Security-Policy: it meets no refusal.
  afterEach(() => expectNoPageFaults({ pageErrors, violations }));

  afterAll(async () => {
    await closeBrowserAndStack(browser, stack);
    await claimChain?.chain.stop();
  });

  const portal = () => `${stack.baseUrl}/app/portal/${project.id}`;
  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
  const code = 'GRACE-2026';
  /** Where the program's referred people land: set by an admin once the first code exists. */
  const programUrl = 'https://program.example/join';
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');

  it('signs in with the wallet (SIWE), applies, and once approved adds a referral code', async () => {
    await page.goto(`${portal()}/`);
    await page.getByRole('heading', { level: 1, name: 'Affiliate portal' }).waitFor();
    expect(await capturePage(page, 'portal', '01-sign-in')).toEqual([]);
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    expect(walletRequests).toEqual(['eth_requestAccounts', 'personal_sign']);
    expect(await page.getByTestId('wallet-address').getAttribute('title')).toBe(wallet.address.toLowerCase());
    const session = JSON.parse((await page.evaluate<string | null>("sessionStorage.getItem('referral.portal')")) ?? 'null') as {
      token: string;
      address: string;
    };
    expect(session.address).toBe(wallet.address.toLowerCase());

    // The API's refusal lands next to its field.
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('Country code (optional)').fill('1x');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#apply-region-error:not([hidden])').waitFor();
    expect(await page.getByLabel('Country code (optional)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Country code (optional)').fill('DE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Your application is waiting for the program’s review.').waitFor();
    expect(await capturePage(page, 'portal', '02-applied')).toEqual([]);

    const applications = await stack.api.get(`/api/v1/projects/${project.id}/applications`, { key: project.keys.admin });
    expect(applications.body.results).toEqual([
      expect.objectContaining({ name: 'Grace Hopper', region: 'DE', identifier: wallet.address.toLowerCase() }),
    ]);
    const audience = await createSegment(stack, project);
    const approved = await stack.api.post(`/api/v1/projects/${project.id}/applications/${applications.body.results[0].id}/approve`, {
      key: project.keys.admin,
      body: { audience_id: audience.id },
    });
    expect(approved.status).toBe(200);

    await nav('Referral codes').click();
    await page.getByRole('heading', { level: 1, name: 'Referral codes' }).waitFor();
    await page.getByText('No codes yet. Add one below.').waitFor();
    await page.getByLabel('New code').fill('no');
    await page.getByRole('button', { name: 'Add code' }).click();
    await page.locator('#new-code-error:not([hidden])').waitFor();
    await page.getByLabel('New code').fill(code);
    await page.getByRole('button', { name: 'Add code' }).click();
    await page.getByRole('cell', { name: code, exact: true }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    // No program URL yet: no link to copy (never the gateway's origin, which answers a JSON 404), and the page says why.
    await page.getByTestId('no-link').waitFor();
    expect(await page.getByRole('button', { name: `Copy link for ${code}` }).count()).toBe(0);
    expect(await page.locator('tbody').innerText()).toContain('No link yet');
    expect(await capturePage(page, 'portal', '03-codes-no-link')).toEqual([]);

    // An admin sets the program URL: the link is the default template with the code in `af`, and that is what is copied.
    expect(
      (await stack.api.patch(`/api/v1/projects/${project.id}/program-settings`, { key: project.keys.admin, body: { program_url: programUrl } }))
        .status,
    ).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: `Copy link for ${code}` }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.locator('tbody code').innerText()).toBe(`${programUrl}?af=${code}`);
    expect(await clipboard()).toBe(`${programUrl}?af=${code}`);
    expect(await page.getByTestId('no-link').count()).toBe(0);
    expect(await capturePage(page, 'portal', '03-codes')).toEqual([]);

    // Four visitors clicked the code today (code_clicks keeps it lower-cased): its clicks, and a 0% conversion rate with nobody referred yet.
    const today = stack.clock.now().toISOString().slice(0, 10);
    for (const visitor of ['v1', 'v2', 'v3', 'v4']) {
      await stack.db.query('INSERT INTO agency.code_clicks (project_id, code, tracking_id, day, first_at) VALUES ($1, $2, $3, $4::date, $4::date)', [
        project.id,
        code.toLowerCase(),
        visitor,
        today,
      ]);
    }
    await page.reload();
    await page.getByTestId(`clicks-${code}`).waitFor();
    expect(await page.getByTestId(`clicks-${code}`).innerText()).toBe('4');
    expect(await page.getByTestId(`conversion-rate-${code}`).innerText()).toBe('0%');
    expect(await page.getByTestId(`rebate-rate-${code}`).innerText()).toBe('none');

    // The affiliate sets its code's rebate rate: a rate over 20% is refused at its field, 5% is kept.
    await page.getByRole('button', { name: `Edit rate… (${code})` }).click();
    const dialog = page.getByRole('dialog', { name: `Rebate rate of ${code}` });
    await dialog.getByLabel('Rebate rate (whole percent, 0 to 20)').fill('25');
    await dialog.getByRole('button', { name: 'Save the rate' }).click();
    await dialog.locator('.field-error:not([hidden])').waitFor();
    expect(await dialog.getByLabel('Rebate rate (whole percent, 0 to 20)').getAttribute('aria-invalid')).toBe('true');
    expect(await capturePage(page, 'portal', '03b-codes-rate-refused')).toEqual([]);
    await dialog.getByLabel('Rebate rate (whole percent, 0 to 20)').fill('5');
    await dialog.getByRole('button', { name: 'Save the rate' }).click();
    await page.getByTestId(`rebate-rate-${code}`).getByText('5%').waitFor();
    const stored = await stack.db.query('SELECT user_rebate_rate_bps FROM agency.affiliate_codes WHERE code = $1', [code]);
    expect(stored.rows[0].user_rebate_rate_bps).toBe(500);
    // The copyable link is still there.
    expect(await page.getByRole('button', { name: `Copy link for ${code}` }).count()).toBe(1);
    expect(await capturePage(page, 'portal', '03c-codes-clicks-rate')).toEqual([]);
    // Cleared again (an empty field): the later steps' rewards are the affiliate's whole share.
    await page.getByRole('button', { name: `Edit rate… (${code})` }).click();
    await dialog.getByLabel('Rebate rate (whole percent, 0 to 20)').fill('');
    await dialog.getByRole('button', { name: 'Save the rate' }).click();
    await page.getByTestId(`rebate-rate-${code}`).getByText('none').waitFor();
    expect(
      (await stack.db.query('SELECT user_rebate_rate_bps FROM agency.affiliate_codes WHERE code = $1', [code])).rows[0].user_rebate_rate_bps,
    ).toBeNull();
  });

  it('shows the stats of a conversion through the code, and the check held by the tax gate', async () => {
    // A referred user converts: the affiliate earns 10% of 10,000 = 1,000 base units. The stats come
    // from the agency's metrics projection, which the paid conversion's event reaches a moment later.
    await sendAttributedConversions(stack, project, [conversionBody({ reward_base: '10000', referral_code: code })]);
    await nav('Stats').click();
    await page.getByRole('heading', { level: 1, name: 'Stats' }).waitFor();
    expect(await page.getByTestId('stat-conversions').innerText()).toBe('1');
    await page.locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
    expect(await capturePage(page, 'portal', '04-stats')).toEqual([]);

    await nav('Claims').click();
    await page.getByRole('heading', { level: 1, name: 'Claims' }).waitFor();
    const row = page.getByTestId('claim-check');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.innerText()).toContain('Affiliate earnings');
    expect(await row.getByRole('note').innerText()).toMatch(/on hold: .*submit your tax form/);
    // Held checks are not offered to close.
    expect(await page.getByRole('button', { name: /Close/ }).count()).toBe(0);
    await page.getByText('Nothing to claim right now. Close an open check first.').waitFor();
    expect(await capturePage(page, 'portal', '05-claims-restricted')).toEqual([]);
  });

  it('sends a W-8BEN through the wizard, the API’s field errors shown by field, and never shows the tax id again', async () => {
    await nav('Tax').click();
    await page.getByText('This program needs your tax form before it can pay your affiliate earnings.').waitFor();
    expect(await capturePage(page, 'portal', '06-tax-status')).toEqual([]);
    await page.getByRole('button', { name: 'W-8BEN', exact: true }).click();
    await page.getByRole('heading', { name: 'Step 2 of 2: your W-8BEN' }).waitFor();
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await field('Legal name').fill('Grace Hopper');
    await field('Country').selectOption('US');
    await field('Foreign tax id number (optional)').fill(TIN.foreign);
    await field('Permanent address: street and number').fill('Unter den Linden 1');
    await field('Permanent address: city').fill('Berlin');
    await field('Permanent address: postal code').fill('10117');
    await field('Permanent address: country').selectOption('DE');
    await field('Signed by (full name)').fill('Grace Hopper');
    await field('Date signed').fill(stack.clock.now().toISOString().slice(0, 10));
    await page.getByRole('checkbox', { name: /^Under penalties of perjury/ }).check();
    // No date of birth: the API's schema names it.
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    await page.locator('#tax-date_of_birth-error:not([hidden])').waitFor();
    expect(await field('Date of birth').getAttribute('aria-invalid')).toBe('true');
    expect(await field('Legal name').getAttribute('aria-invalid')).toBe('false');
    // Then the tax service's own rule: a W-8 is never for a US resident.
    await field('Date of birth').fill('1990-12-09');
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    await page.locator('#tax-country-error:not([hidden])').waitFor();
    expect(await page.locator('#tax-date_of_birth-error').isHidden()).toBe(true);
    expect(await field('Country').getAttribute('aria-invalid')).toBe('true');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [project.id])).rows[0].n).toBe(0);
    // The refusal never repeats the tax id.
    expect(await page.locator('main').innerText()).not.toContain('9876');
    expect(await capturePage(page, 'portal', '07-tax-field-errors')).toEqual([]);

    await field('Country').selectOption('DE');
    await page.getByRole('button', { name: 'Send W-8BEN' }).click();
    await page.getByText('Your W-8BEN was sent for review.').waitFor();
    await page.getByText('Your W-8BEN is being reviewed.').waitFor();
    // The tax id is shown nowhere once sent: not in the page's text, not left in an input.
    const shown = [
      await page.locator('body').innerText(),
      ...(await page.locator('input').evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))),
    ].join('\n');
    for (const tin of [TIN.foreign, TIN.foreignStored, '9876']) expect(shown).not.toContain(tin);
    expect(await capturePage(page, 'portal', '08-tax-submitted')).toEqual([]);

    await nav('Claims').click();
    // The list read again on opening: the hold now says the form is in review.
    await page.getByTestId('claim-check').getByRole('note').filter({ hasText: 'being reviewed' }).waitFor();
  });

  it('after an admin approves the form, closes the check and claims it on chain from the wallet', async () => {
    expect((await stack.api.post(adminPaths(project, wallet.address.toLowerCase()).approve, { key: project.keys.admin })).status).toBe(200);
    const before = await claimChain.balanceOf(wallet.address);
    // A deep link: the session is read back from this tab's storage.
    await page.goto(`${portal()}/claims`);
    await page.getByRole('heading', { level: 1, name: 'Claims' }).waitFor();
    await page.getByRole('button', { name: 'Close the open check to claim' }).click();
    await page.getByTestId('claimable').waitFor();
    expect(await page.getByTestId('claimable').innerText()).toContain('One voucher to claim: 0.001 TUSD');
    // The voucher names the contract it was signed for: the claim goes there, nobody types it.
    expect(await page.getByTestId('claim-manager').innerText()).toBe(claimChain.manager.toLowerCase());
    expect(await capturePage(page, 'portal', '09-claim-ready')).toEqual([]);

    await page.getByRole('button', { name: 'Claim with wallet' }).click();
    await page.getByTestId('claimed').waitFor({ timeout: 30_000 });
    expect(walletRequests.filter((method) => method === 'eth_sendTransaction')).toHaveLength(1);
    // The wallet was on mainnet: the page asked it to switch to the chain the API named (the test chain, 31337) before sending.
    expect(walletRequests.slice(walletRequests.indexOf('wallet_switchEthereumChain'), walletRequests.indexOf('eth_sendTransaction') + 1)).toEqual([
      'wallet_switchEthereumChain',
      'eth_sendTransaction',
    ]);
    expect(walletChain).toBe(31_337);
    // Gas is paid in the native coin: the token balance grows by exactly the amount.
    expect((await claimChain.balanceOf(wallet.address)) - before).toBe(1_000n);

    // The claim service's watcher sees the Claimed log once it is confirmed; the list follows.
    await claimChain.chain.mine(CONFIRMATIONS);
    await pollUntil(
      async () => {
        await page.reload();
        await page.getByTestId('claim-check').first().waitFor();
        return (await page.getByTestId('claim-check').innerText()).includes('Claimed');
      },
      { timeoutMs: 20_000, intervalMs: 500, what: 'the check to read Claimed' },
    );
    expect(await capturePage(page, 'portal', '10-claimed')).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
    expect(await page.evaluate<string | null>("sessionStorage.getItem('referral.portal')")).toBeNull();
  });

  it('shows an affiliate an admin made (it never applied) its membership and its codes with the program’s links, and no apply button', async () => {
    // Another wallet of the chain signs in; the admin made it an affiliate with a code, and set a template of the program's own.
    const applicant = wallet;
    // Signing in needs only its address and personal_sign (it sends no transaction here).
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
    const privateKey = generatePrivateKey();
    const account = privateKeyToAccount(privateKey);
    wallet = { ...applicant, address: account.address, privateKey, account };
    try {
      const adminCode = 'ADA-ADMIN';
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        key: project.keys.admin,
        body: { identifier: wallet.address, identifier_type: 'evm_address', name: 'Ada Admin-made', code: adminCode },
      });
      expect(created.status).toBe(201);
      const template = '{program_url}/r/{code}?utm_source=portal';
      expect(
        (
          await stack.api.patch(`/api/v1/projects/${project.id}/program-settings`, {
            key: project.keys.admin,
            body: { program_url: programUrl, link_template: template },
          })
        ).status,
      ).toBe(200);

      await page.goto(`${portal()}/`);
      await page.getByRole('button', { name: 'Sign in with wallet' }).click();
      await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
      expect(await page.getByTestId('membership-status').innerText()).toBe('You are an affiliate of this program.');
      expect(await page.getByRole('button', { name: 'Apply' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Apply to become an affiliate' }).count()).toBe(0);
      expect(await capturePage(page, 'portal', '11-admin-made-membership')).toEqual([]);

      await nav('Referral codes').click();
      await page.getByRole('cell', { name: adminCode, exact: true }).waitFor();
      const link = `${programUrl}/r/${adminCode}?utm_source=portal`;
      expect(await page.locator('tbody code').innerText()).toBe(link);
      await page.getByRole('button', { name: `Copy link for ${adminCode}` }).click();
      await page.getByText('Copied.').waitFor();
      expect(await clipboard()).toBe(link);
      expect(await capturePage(page, 'portal', '12-admin-made-codes')).toEqual([]);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
    } finally {
      wallet = applicant;
    }
  });

  it('shows amounts pending with the date each becomes available (hold_days) or the approval it waits for, then the held one available once released', async () => {
    const DAY = 86_400_000;
    await putTerms(stack, project, 'held-trade', { currency_id: project.currencyId, affiliate: { bps: 1_000 }, hold_days: 1 });
    await putTerms(stack, project, 'approved-trade', { currency_id: project.currencyId, affiliate: { bps: 1_000 }, require_approval: true });
    // 10% of 25 TUSD: 2.5 TUSD (2,500,000 base units of 6 decimals), held for a day; 10% of 10 TUSD waiting for the program's approval.
    await sendAttributedConversions(stack, project, [
      conversionBody({ name: 'held-trade', reward_base: '25000000', referral_code: code }),
      conversionBody({ name: 'approved-trade', reward_base: '10000000', referral_code: code }),
    ]);
    const affiliate = wallet.address.toLowerCase();
    // Another affiliate earns more: 10% of 100 TUSD (10 TUSD), so the wallet is second on the payouts board.
    const rivalCode = 'RIVAL-2026';
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
          key: project.keys.admin,
          body: { identifier: randomEvmAddress(), identifier_type: 'evm_address', name: 'Rival', code: rivalCode },
        })
      ).status,
    ).toBe(201);
    await sendAttributedConversions(stack, project, [conversionBody({ reward_base: '100000000', referral_code: rivalCode })]);
    const held = await stack.api.get(`/api/v1/payouts/movements?user_identifier=${affiliate}`, { key: project.keys.readOnly });
    const movement = held.body.results.find((item: { conversion_name: string }) => item.conversion_name === 'held-trade');
    expect(movement).toMatchObject({ status: 'pending', pending_reason: 'hold', total_amount: '2500000' });
    const availableOn = (movement.available_at as string).slice(0, 10);

    await page.goto(`${portal()}/`);
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    await nav('Claims').click();
    await page.getByRole('heading', { level: 1, name: 'Claims' }).waitFor();
    const earnings = page.getByRole('region', { name: 'Your earnings' });
    await earnings.getByTestId('earnings').waitFor();
    expect(await earnings.getByTestId('earnings').count()).toBe(1);
    // The 1,000 base units claimed before are no longer to claim: only the held amount, pending.
    expect(await earnings.getByTestId('earnings-available').innerText()).toBe('0 TUSD');
    expect(await earnings.getByTestId('earnings-pending').innerText()).toBe('3.5 TUSD');
    const pending = page.getByRole('region', { name: 'When pending amounts become available' }).getByTestId('pending-amount');
    expect(await pending.allInnerTexts()).toEqual([`2.5 TUSD\tavailable on ${availableOn}`, '1 TUSD\twaiting for the program’s approval']);
    // Beside the earnings, its place on the payouts board (the board's own entry of the wallet): behind the rival's 10 TUSD, with the
    // 0.001 TUSD claimed before; the board counts an amount once it is available, so neither pending one yet.
    const position = page.getByTestId('board-position');
    await position.waitFor();
    expect(await position.allInnerTexts()).toEqual(['2nd among affiliates in TUSD, with 0.001 TUSD earned from 1 payout.']);
    expect(await capturePage(page, 'portal', '13-claims-pending')).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();

    // The hold ends: the release job (every 100 ms) moves the amount into an open check.
    stack.clock.advance(DAY + 60_000);
    await pollUntil(
      async () => {
        const totals = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${affiliate}`, { key: project.keys.readOnly });
        return totals.body.unclaimed[0]?.amount === '2500000' ? true : undefined;
      },
      { timeoutMs: 15_000, what: 'the release job to release the held movement' },
    );
    // The session expired with the clock's day: sign in again, on the Claims page where it was left.
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Claims' }).waitFor();
    await earnings.getByTestId('earnings').waitFor();
    expect(await earnings.getByTestId('earnings-available').innerText()).toBe('2.5 TUSD');
    // What waits for the program's approval still waits: the clock does not decide for it.
    expect(await earnings.getByTestId('earnings-pending').innerText()).toBe('1 TUSD');
    expect(await pending.allInnerTexts()).toEqual(['1 TUSD\twaiting for the program’s approval']);
    // Released, the held 2.5 TUSD counts on the board too.
    await position.filter({ hasText: '2.501 TUSD' }).waitFor();
    expect(await position.allInnerTexts()).toEqual(['2nd among affiliates in TUSD, with 2.501 TUSD earned from 2 payouts.']);
    await page.getByRole('button', { name: 'Close the open check to claim' }).waitFor();
    expect(await capturePage(page, 'portal', '14-claims-released')).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
  });

  it('explains in words a debt a refund left after the voucher was out, and offers no close for an open check holding nothing', async () => {
    const affiliate = wallet.address.toLowerCase();
    const movements = await stack.api.get(`/api/v1/payouts/movements?user_identifier=${affiliate}`, { key: project.keys.readOnly });
    const byName = (name: string) => movements.body.results.find((item: { conversion_name: string }) => item.conversion_name === name);
    await page.goto(`${portal()}/`);
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    await nav('Claims').click();
    // The released 2.5 TUSD goes out in a voucher.
    await page.getByRole('button', { name: 'Close the open check to claim' }).click();
    await page.getByTestId('claimable').waitFor();

    // The order is refunded: the backend reverses it whole. Its voucher was out, so the 2.5 TUSD becomes the affiliate's debt.
    const reversed = await stack.api.post(`/api/v1/conversions/${byName('held-trade').conversion_id}/reverse`, {
      key: project.keys.service,
      body: { reversal_id: 'refund-held-trade', reason: 'Order refunded' },
    });
    expect(reversed.status).toBe(201);
    expect(reversed.body.movements).toEqual([expect.objectContaining({ amount: '2500000', to_debt: '2500000', from_check: '0' })]);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Claims' }).waitFor();
    await page.getByTestId('debt').waitFor();
    expect(await page.getByTestId('debt').innerText()).toBe(
      'A refunded conversion took back 2.5 TUSD after your voucher was issued; it is paid from your next earnings before anything new becomes claimable.',
    );
    // The debt is carried on an open check that holds nothing: listed, said why, and not offered to close.
    const empty = page.getByTestId('claim-check').filter({ hasText: 'nothing to claim' });
    await empty.waitFor();
    expect(await empty.innerText()).toContain('0 TUSD');
    expect(await page.getByRole('button', { name: /^Close/ }).count()).toBe(0);
    expect(await capturePage(page, 'portal', '15-claims-debt')).toEqual([]);

    // The program approves the 1 TUSD that waited: it pays the debt first, and nothing new becomes claimable.
    const approved = await stack.api.post(`/api/v1/projects/${project.id}/movements/approve`, {
      key: project.keys.admin,
      body: { conversion_ids: [byName('approved-trade').conversion_id] },
    });
    expect(approved.body.results).toEqual([expect.objectContaining({ outcome: 'approved' })]);
    await page.reload();
    await page.getByTestId('debt').filter({ hasText: 'took back 1.5 TUSD' }).waitFor();
    expect(await page.getByRole('button', { name: /^Close/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
  });

  it('shows what the wallet earned at each referral level: level 2 from a conversion of an affiliate it referred', async () => {
    // Lena's wallet was referred with the wallet's code, and she is an affiliate: her conversions pay the wallet level 2.
    await putTerms(stack, project, 'level-trade', { currency_id: project.currencyId, affiliate: { bps: 1_000 }, affiliate2: { bps: 500 } });
    const lena = randomEvmAddress();
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: lena, identifier_type: 'evm_address', name: 'Lena', code: 'LENA-2026' },
    });
    expect(created.status).toBe(201);
    const referred = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: lena, user_identifier_type: 'evm_address', code },
    });
    expect(referred.status).toBe(201);
    // 5% of 10 TUSD to the wallet at level 2: 0.5 TUSD.
    await sendAttributedConversions(stack, project, [
      conversionBody({ name: 'level-trade', reward_base: '10000000', volume_usd: '40', revenue_usd: '2', referral_code: 'LENA-2026' }),
    ]);
    const affiliate = wallet.address.toLowerCase();
    const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate}`, { key: project.keys.admin });
    const own = detail.body.referral_tree.levels[0];

    await page.goto(`${portal()}/`);
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Membership' }).waitFor();
    await nav('Claims').click();
    const levels = page.getByRole('region', { name: 'Earnings per referral level' });
    await levels.getByTestId('level-earnings').first().waitFor();
    expect(await levels.getByTestId('level-earnings').allInnerTexts()).toEqual([
      // Level 1 is the wallet's own figures, as the program's admin reads them.
      `Level 1: people you referred\t${formatUsd(own.volume_usd)}\t${own.conversions}\t${own.earnings.map(formatCurrencyAmount).join(', ')}`,
      'Level 2: referred by affiliates you referred\t$40.00\t1\t0.5 TUSD',
      'Level 3\t$0.00\t0\tNothing yet',
      'Level 4\t$0.00\t0\tNothing yet',
    ]);
    expect(await capturePage(page, 'portal', '16-claims-levels')).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
  });
});
