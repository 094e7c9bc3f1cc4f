import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, requireTaxInfo, signedInAffiliate, TIN, w8ben, w9 } from './tax-forms';

/**
 * A record whose tax id no longer decrypts (sealed under another binding, or a key since removed)
 * spoils nothing but itself: the review queue shows it as unreadable and answers the rest, and
 * the reads of that one record answer a clear 409 instead of a 500.
 */
describe('a tax record that cannot be decrypted', () => {
  let stack: TestStack;
  let project: TestProject;
  let healthy: Affiliate;
  let damaged: Affiliate;
  let damagedId: string;
  let healthyId: string;

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    await requireTaxInfo(stack, project);
    healthy = await signedInAffiliate(stack, project);
    damaged = await signedInAffiliate(stack, project);
    healthyId = (await healthy.submit(w9())).body.id;
    damagedId = (await damaged.submit(w8ben())).body.id;
    // The damaged record gets a ciphertext sealed for another record: it authenticates nowhere else.
    await stack.db.query(
      `UPDATE tax.tax_records t SET tax_id_key_id = s.tax_id_key_id, tax_id_iv = s.tax_id_iv,
         tax_id_ciphertext = s.tax_id_ciphertext, tax_id_auth_tag = s.tax_id_auth_tag
       FROM tax.tax_records s WHERE s.id = $1 AND t.id = $2`,
      [healthyId, damagedId],
    );
  });
  afterAll(() => stack.stop());

  const expectUnreadable = (response: { status: number; body: any; text: string }) => {
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ status: 409, code: 'TAX_INFO_UNREADABLE', message: expect.stringContaining(damagedId), details: [] });
    expect(response.text).not.toContain(TIN.ssnDigits);
  };

  it('shows in the review queue as unreadable, with its id, while the other items read as usual', async () => {
    const queue = await stack.api.get(`${adminPaths(project, '0x').submissions}?status=submitted`, { key: project.keys.admin });
    expect(queue.status).toBe(200);
    expect(queue.body.total_results).toBe(2);
    const byId = Object.fromEntries(queue.body.results.map((item: { id: string }) => [item.id, item]));
    expect(byId[healthyId]).toMatchObject({ unreadable: false, tax_id_number: '*****6789', legal_name: 'Ada Lovelace' });
    expect(byId[damagedId]).toMatchObject({
      id: damagedId,
      unreadable: true,
      tax_id_number: null,
      user_identifier: damaged.wallet.address,
      form_type: 'w8ben',
      status: 'submitted',
    });
    expect(queue.text).not.toContain(TIN.ssnDigits);
  });

  it('answers the reads of that record 409 TAX_INFO_UNREADABLE, and the same reads of others as usual', async () => {
    expectUnreadable(await damaged.taxInfo());
    expectUnreadable(await stack.api.get(adminPaths(project, damaged.wallet.address).taxStatus, { key: project.keys.admin }));
    expect((await damaged.status()).body.status).toBe('submitted');

    expect((await healthy.taxInfo()).body.tax_id_number).toBe('*****6789');
    const unmasked = await stack.api.get(adminPaths(project, healthy.wallet.address).taxStatus, { key: project.keys.admin });
    expect(unmasked.body.tax_info.tax_id_number).toBe(TIN.ssn);
  });

  it('logs the record id as a warning, never a stack at error level', () => {
    const lines = stack.logs.lines.map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
    expect(lines.some((line) => line.level === 'warn' && line.tax_record_id === damagedId)).toBe(true);
  });

  it('lets the affiliate submit the form again, which reads as usual', async () => {
    const again = await damaged.submit(w8ben({ tax_id_number: 'DE 1111 2222 33' }));
    expect(again.status).toBe(201);
    expect((await damaged.taxInfo()).body).toMatchObject({ id: again.body.id, tax_id_number: '*****2233' });
  });
});
