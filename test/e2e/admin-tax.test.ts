import type { Browser, Page } from 'playwright-core';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { signedInAffiliate, TIN, w8ben, w8bene, w9 } from '../tax/tax-forms';
import { capturePage, DESKTOP, openChromium, signInToAdmin, watchForeignRequests } from './browser';
import { buildWebApp } from './web-build';

/**
 * The admin dashboard's tax section driven in Chromium against the real stack: three affiliates
 * send forms through the portal API; the admin changes the settings (after the API names a wrong
 * field), approves one form, revokes another with a reason, and reads one tax id in full, which only
 * happens after the audit notice and a press of the button, and lands in the audit log. Each page is
 * screenshotted at desktop and mobile width (test-artifacts/admin-tax/) and checked with axe-core.
 */
/** A step of a person's flow: several pages, each loaded, screenshotted twice and checked; slow on a loaded machine. */
const STEP_TIMEOUT_MS = 120_000;

/** Ada's SSN: its digits appear nowhere else in the flow (the company EIN below differs). */
const ADA_SSN = '401-23-5813';
/** Every written form of the two tax ids that must not reach a page unless asked for. */
const FULL_TAX_IDS = [ADA_SSN, ADA_SSN.replaceAll('-', ''), TIN.foreignStored, TIN.foreign];

describe('the admin tax section in a browser', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let page: Page;
  const forms = { ada: '', grace: '', engines: '' };
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  /** Pages whose HTML held a full tax id before the admin asked for one. */
  const leaks: string[] = [];

  /** The page as it is now holds no full tax id (the masked `*****5813` is fine). */
  const expectMaskedOnly = async (where: string) => {
    const html = await page.content();
    for (const taxId of FULL_TAX_IDS) if (html.includes(taxId)) leaks.push(`${where}: ${taxId}`);
    expect(leaks).toEqual([]);
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Tax pages' }).getByRole('link', { name, exact: true });
  const queueRows = () => page.locator('tbody .tax-record-link').allInnerTexts();
  const taxRecords = async () =>
    (await stack.db.query('SELECT identifier, status, revoked_reason FROM tax.tax_records WHERE project_id = $1 ORDER BY submitted_at', [project.id]))
      .rows;

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    const submissions = [
      ['ada', w9({ tax_id_number: ADA_SSN })],
      ['grace', w8ben()],
      ['engines', w8bene({ tax_id_number: undefined, foreign_tin_not_required_reason: 'Not issued by the country of incorporation' })],
    ] as const;
    for (const [who, body] of submissions) {
      const affiliate = await signedInAffiliate(stack, project);
      const sent = await affiliate.submit(body);
      if (sent.status !== 201) throw new Error(`tax form not taken: ${sent.status} ${sent.text}`);
      forms[who] = affiliate.wallet.address.toLowerCase();
      // A minute apart: the queue lists the oldest submission first.
      stack.clock.advance(60_000);
    }
    browser = await openChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    watchForeignRequests(page, stack.baseUrl, foreignRequests);
  }, 240_000);

  afterEach(() => expect(pageErrors).toEqual([]));

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it(
    'signs in and lists the forms awaiting review, tax ids masked',
    async () => {
      await signInToAdmin(page, stack.baseUrl, project);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tax' }).click();
      await page.getByRole('heading', { level: 1, name: 'Tax forms' }).waitFor();
      await page.getByText('Page 1 of 1 (3 in all)').waitFor();
      expect(await queueRows()).toEqual(['Ada Lovelace', 'Grace Hopper', 'Analytical Engines GmbH']);
      expect(await page.locator('tbody tr').first().innerText()).toContain('*****5813');
      await expectMaskedOnly('queue');
      expect(await capturePage(page, 'admin-tax', '01-queue')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'changes the settings, after showing the API’s problem next to the field it names',
    async () => {
      await nav('Settings').click();
      await page.getByRole('heading', { level: 1, name: 'Tax settings' }).waitFor();
      await page.getByText('The defaults: never changed.').waitFor();
      await page.getByLabel('Affiliates need an approved tax form to claim affiliate payouts').check();
      await page.getByLabel('Company legal name (optional)').fill('Referral Works Inc.');
      // The rules offered, the specification's default first and selected while the program follows it.
      const rule = page.getByLabel('When an approved W-8 expires');
      expect(await rule.inputValue()).toBe('three_years_from_approval');
      expect(await rule.locator('option').allInnerTexts()).toEqual([
        'Choose…',
        '3 years after approval (default)',
        '3 years after the signature date',
        'On 31 December of the third year after signing (IRS rule)',
      ]);
      await page.getByText('This program follows the default.', { exact: false }).waitFor();
      await rule.selectOption('irs_calendar');
      await page.getByLabel('New company EIN (optional)').fill('00-1234567');
      await page.getByRole('button', { name: 'Save settings' }).click();
      // The API's reason sits under the input it names, and the input says it is invalid.
      await page.getByText('Is not a valid EIN: the IRS assigns no EIN with this two-digit prefix.', { exact: true }).waitFor();
      expect(await page.getByLabel('New company EIN (optional)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByRole('alert').innerText()).toMatch(/^Not saved: .+/);
      const untouched = await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_settings WHERE project_id = $1', [project.id]);
      expect(untouched.rows[0].n).toBe(0);
      expect(await capturePage(page, 'admin-tax', '02-settings-refused')).toEqual([]);

      await page.getByLabel('New company EIN (optional)').fill('12-3456789');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      // The form starts again from what was stored: the EIN only ever comes back masked.
      await page.getByText('Stored: *****6789. Leave empty to keep it.').waitFor();
      await page.getByText('This program chose its rule.', { exact: false }).waitFor();
      expect(await page.getByLabel('New company EIN (optional)').inputValue()).toBe('');
      expect(await page.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
      const stored = await stack.db.query(
        'SELECT require_tax_info, company_legal_name, w8_expiry_rule, company_tax_id_ciphertext IS NOT NULL AS has_ein FROM tax.tax_settings WHERE project_id = $1',
        [project.id],
      );
      expect(stored.rows).toEqual([
        { require_tax_info: true, company_legal_name: 'Referral Works Inc.', w8_expiry_rule: 'irs_calendar', has_ein: true },
      ]);
      await expectMaskedOnly('settings');
      expect(await capturePage(page, 'admin-tax', '03-settings-saved')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'approves one form and revokes another with a reason, after confirming; the queue follows',
    async () => {
      await nav('Tax forms').click();
      await page.getByText('Page 1 of 1 (3 in all)').waitFor();
      await page.getByRole('button', { name: 'Approve Ada Lovelace' }).click();
      await page.getByText('Page 1 of 1 (2 in all)').waitFor();
      expect(await queueRows()).toEqual(['Grace Hopper', 'Analytical Engines GmbH']);

      await page.getByRole('button', { name: 'Revoke Grace Hopper…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke the tax form of Grace Hopper?' });
      await dialog.waitFor();
      // Cancelling changes nothing.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect((await taxRecords()).map((record) => record.status)).toEqual(['approved', 'submitted', 'submitted']);

      await page.getByRole('button', { name: 'Revoke Grace Hopper…' }).click();
      await dialog.getByLabel('Reason (shown to the affiliate)').fill('The date of birth does not match the passport');
      expect(await capturePage(page, 'admin-tax', '04-revoke-confirm')).toEqual([]);
      await dialog.getByRole('button', { name: 'Revoke the form' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      expect(await queueRows()).toEqual(['Analytical Engines GmbH']);
      expect(await taxRecords()).toEqual([
        { identifier: forms.ada, status: 'approved', revoked_reason: null },
        { identifier: forms.grace, status: 'revoked', revoked_reason: 'The date of birth does not match the passport' },
        { identifier: forms.engines, status: 'submitted', revoked_reason: null },
      ]);

      await page.getByLabel('Status').selectOption('revoked');
      await page.getByText('revoked: The date of birth does not match the passport').waitFor();
      expect(new URL(page.url()).searchParams.get('status')).toBe('revoked');
      await expectMaskedOnly('revoked list');
      expect(await capturePage(page, 'admin-tax', '05-revoked')).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows a full tax id only after the audit notice and a press, records the read, and forgets it on leaving',
    async () => {
      await page.getByLabel('Status').selectOption('approved');
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
      await page.getByText('Tax id (masked)', { exact: true }).waitFor();
      expect(await page.locator('.facts').first().innerText()).toContain('*****5813');
      const notice = page.getByRole('note');
      expect(await notice.innerText()).toBe('This read is recorded in the audit log: who, when, whose record.');
      // Nothing was read in full by opening the page.
      await expectMaskedOnly('record before the press');
      const audited = async () => (await stack.db.query('SELECT identifier FROM tax.tax_audit_log WHERE project_id = $1', [project.id])).rows;
      expect(await audited()).toEqual([]);
      expect(await capturePage(page, 'admin-tax', '06-record-masked')).toEqual([]);

      await page.getByRole('button', { name: 'Show the full tax id' }).click();
      await page.getByText(ADA_SSN).waitFor();
      const full = page.getByRole('region', { name: 'Full tax record (audited)' });
      await full.getByText('Tax id (in full)', { exact: true }).waitFor();
      expect(await full.innerText()).toContain(ADA_SSN);
      expect(await audited()).toEqual([{ identifier: forms.ada }]);
      expect(await capturePage(page, 'admin-tax', '07-record-unmasked')).toEqual([]);

      await full.getByRole('link', { name: 'audit log' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      const entry = page.locator('tbody tr');
      // The heading shows before the log and the key names have loaded: wait for the row naming the key.
      await entry.filter({ hasText: `(${project.keys.admin.slice(0, 8)}` }).waitFor();
      expect(await entry.count()).toBe(1);
      // Whose record (the full address in the link's title), what, and who read it: the signed-in key, by name.
      expect(await entry.getByRole('link').getAttribute('title')).toBe(forms.ada);
      expect(await entry.innerText()).toContain('tax_info.unmasked_read');
      expect(await entry.innerText()).toContain(`(${project.keys.admin.slice(0, 8)}`);
      await expectMaskedOnly('audit log');
      expect(await capturePage(page, 'admin-tax', '08-audit-log')).toEqual([]);

      // Back on the record: the full value is gone, and showing it again takes another press (and another entry).
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
      await page.getByRole('button', { name: 'Show the full tax id' }).waitFor();
      await expectMaskedOnly('record after leaving');
      expect(await audited()).toHaveLength(1);

      // A typed (or bookmarked) address opens the same masked record, read by its owner: no audit entry.
      await page.goto(`${stack.baseUrl}/app/admin/tax/records/evm_address/${forms.ada}`);
      await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
      await page.getByText('Tax id (masked)', { exact: true }).waitFor();
      expect(await page.locator('.facts').first().innerText()).toContain('*****5813');
      await expectMaskedOnly('record opened by its address');
      expect(await audited()).toHaveLength(1);
    },
    STEP_TIMEOUT_MS,
  );

  it('loaded nothing from anywhere but the gateway, on every page', () => {
    expect(foreignRequests).toEqual([]);
  });
});
