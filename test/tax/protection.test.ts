import { createProject, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, NOT_SUBMITTED, requireTaxInfo, signedInAffiliate, TIN, w8ben, w9 } from './tax-forms';

const FULL_TIN_FORMS = [TIN.ssn, TIN.ssnDigits];

function expectNoFullTin(text: string): void {
  for (const form of FULL_TIN_FORMS) expect(text).not.toContain(form);
}

/** Masking, the audit log, encryption at rest, clean logs, and who may see whose tax info. */
describe('protecting tax information', () => {
  let stack: TestStack;
  let project: TestProject;
  let affiliate: Affiliate;
  let recordId: string;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    await requireTaxInfo(stack, project);
    affiliate = await signedInAffiliate(stack, project);
    const submitted = await affiliate.submit(w9());
    recordId = submitted.body.id;
  });
  afterAll(() => stack.stop());

  const paths = (who: Affiliate | string, inProject = project) => adminPaths(inProject, typeof who === 'string' ? who : who.wallet.address);

  describe('masking', () => {
    it('shows only the last four digits in the submission answer, the portal and the review queue', async () => {
      const other = await signedInAffiliate(stack, project);
      const submitted = await other.submit(w9());
      const own = await other.taxInfo();
      const queue = await stack.api.get(`${paths(other).submissions}?status=submitted`, { key: project.keys.admin });

      expect(submitted.body.tax_id_number).toBe('*****6789');
      expect(own.body.tax_id_number).toBe('*****6789');
      expect(queue.status).toBe(200);
      expect(queue.body.results.length).toBeGreaterThanOrEqual(2);
      for (const item of queue.body.results) expect(item.tax_id_number).toBe('*****6789');
      for (const response of [submitted, own, queue, await other.status()]) expectNoFullTin(response.text);
    });

    it('shows the full tax id on the admin tax-status endpoint only', async () => {
      const response = await stack.api.get(paths(affiliate).taxStatus, { key: project.keys.admin });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        user_identifier: affiliate.wallet.address,
        user_identifier_type: 'evm_address',
        status: 'submitted',
        form_type: 'w9',
        tax_info: { id: recordId, tax_id_number: TIN.ssn, legal_name: 'Ada Lovelace', tin_type: 'ssn' },
      });
    });

    it('answers the admin tax-status of someone who never submitted without a record (and without an audit entry)', async () => {
      const before = (await stack.api.get(paths(affiliate).auditLog, { key: project.keys.admin })).body.total_results;
      const nobody = '0x00000000000000000000000000000000000000aa';
      const response = await stack.api.get(paths(nobody).taxStatus, { key: project.keys.admin });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        user_identifier: nobody,
        user_identifier_type: 'evm_address',
        ...NOT_SUBMITTED,
        tax_info: null,
      });
      expect((await stack.api.get(paths(affiliate).auditLog, { key: project.keys.admin })).body.total_results).toBe(before);
    });
  });

  describe('the audit log', () => {
    it('records every unmasked read: who, when, whose record and the request id, never the value', async () => {
      const audited = await createProject(stack);
      const person = await signedInAffiliate(stack, audited);
      const submitted = await person.submit(w9());
      const second = await stack.api.post(`/api/v1/projects/${audited.id}/api-keys`, {
        key: audited.keys.admin,
        body: { role: 'admin', name: 'compliance' },
      });

      await stack.api.get(paths(person, audited).taxStatus, { key: audited.keys.admin, headers: { 'x-request-id': 'audit-read-1' } });
      stack.clock.advance(5_000);
      await stack.api.get(paths(person, audited).taxStatus, { key: second.body.key, headers: { 'x-request-id': 'audit-read-2' } });

      const log = await stack.api.get(paths(person, audited).auditLog, { key: audited.keys.admin });
      expect(log.status).toBe(200);
      expect(log.body).toEqual({
        results: [
          {
            id: expect.any(String),
            action: 'tax_info.unmasked_read',
            actor_api_key_id: second.body.id,
            user_identifier: person.wallet.address,
            user_identifier_type: 'evm_address',
            tax_record_id: submitted.body.id,
            request_id: 'audit-read-2',
            occurred_at: '2026-11-21T12:00:05.000Z',
          },
          {
            id: expect.any(String),
            action: 'tax_info.unmasked_read',
            actor_api_key_id: audited.keyIds.admin,
            user_identifier: person.wallet.address,
            user_identifier_type: 'evm_address',
            tax_record_id: submitted.body.id,
            request_id: 'audit-read-1',
            occurred_at: '2026-11-21T12:00:00.000Z',
          },
        ],
        total_results: 2,
        page: 1,
        page_size: 25,
      });
      stack.clock.set('2026-11-21T12:00:00.000Z');
      const { rows } = await stack.db.query('SELECT to_jsonb(a) AS row FROM tax.tax_audit_log a WHERE project_id = $1', [audited.id]);
      expect(rows).toHaveLength(2);
      expectNoFullTin(JSON.stringify(rows));
    });

    it('writes nothing when the read is refused (wrong role) and pages like every list', async () => {
      const audited = await createProject(stack);
      const person = await signedInAffiliate(stack, audited);
      await person.submit(w9());
      expect((await stack.api.get(paths(person, audited).taxStatus, { key: audited.keys.readOnly })).status).toBe(403);
      expect((await stack.api.get(paths(person, audited).auditLog, { key: audited.keys.admin })).body.total_results).toBe(0);

      for (let read = 0; read < 3; read += 1) await stack.api.get(paths(person, audited).taxStatus, { key: audited.keys.admin });
      const page = await stack.api.get(`${paths(person, audited).auditLog}?page=2&page_size=2`, { key: audited.keys.admin });
      expect(page.body).toMatchObject({ total_results: 3, page: 2, page_size: 2 });
      expect(page.body.results).toHaveLength(1);
    });
  });

  describe('encryption at rest', () => {
    it('stores no digits of the tax id in the row: AES-256-GCM with the active key, a 12-byte IV and a 16-byte tag', async () => {
      const { rows } = await stack.db.query(
        'SELECT to_jsonb(r) AS row, r.tax_id_ciphertext, r.tax_id_iv, r.tax_id_auth_tag FROM tax.tax_records r WHERE id = $1',
        [recordId],
      );
      const row = rows[0];
      const raw = JSON.stringify(row.row);
      expectNoFullTin(raw);
      expect(row.row.tax_id_key_id).toBe('test2026');
      expect(row.tax_id_iv).toHaveLength(12);
      expect(row.tax_id_auth_tag).toHaveLength(16);
      expect(row.tax_id_ciphertext.includes(Buffer.from(TIN.ssnDigits))).toBe(false);

      // Random material (ids, the random wallet's address, IV, ciphertext, tag) is hex and may hold any
      // digits by chance; every other column must hold no run of four digits of the TIN, the last four included.
      const random = new Set(['id', 'project_id', 'identifier', 'superseded_by', 'tax_id_iv', 'tax_id_ciphertext', 'tax_id_auth_tag']);
      const readable = JSON.stringify(Object.entries(row.row).filter(([column]) => !random.has(column)));
      for (let start = 0; start + 4 <= TIN.ssnDigits.length; start += 1) {
        expect(readable).not.toContain(TIN.ssnDigits.slice(start, start + 4));
      }
    });

    it('encrypts every value with a fresh IV: two equal tax ids never share a ciphertext', async () => {
      const other = await signedInAffiliate(stack, project);
      const second = await other.submit(w9());
      const { rows } = await stack.db.query('SELECT tax_id_iv, tax_id_ciphertext FROM tax.tax_records WHERE id = ANY($1)', [
        [recordId, second.body.id],
      ]);
      expect(rows[0].tax_id_iv.equals(rows[1].tax_id_iv)).toBe(false);
      expect(rows[0].tax_id_ciphertext.equals(rows[1].tax_id_ciphertext)).toBe(false);
    });

    it('binds each ciphertext to its record: one copied onto another record does not open (409 TAX_INFO_UNREADABLE, nothing leaks)', async () => {
      // A project of its own: the damaged record must not disturb the other tests' lists.
      const isolated = await createProject(stack);
      const owner = await signedInAffiliate(stack, isolated);
      const source = await owner.submit(w9());
      const victim = await signedInAffiliate(stack, isolated);
      await victim.submit(w8ben());
      await stack.db.query(
        `UPDATE tax.tax_records t SET tax_id_key_id = s.tax_id_key_id, tax_id_iv = s.tax_id_iv,
           tax_id_ciphertext = s.tax_id_ciphertext, tax_id_auth_tag = s.tax_id_auth_tag
         FROM tax.tax_records s WHERE s.id = $1 AND t.identifier = $2 AND t.superseded_at IS NULL`,
        [source.body.id, victim.wallet.address],
      );
      const response = await stack.api.get(paths(victim, isolated).taxStatus, { key: isolated.keys.admin });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('TAX_INFO_UNREADABLE');
      expectNoFullTin(response.text);
      expect((await stack.api.get(paths(owner, isolated).taxStatus, { key: isolated.keys.admin })).body.tax_info.tax_id_number).toBe(TIN.ssn);
    });
  });

  it('logs no tax id while a form is submitted and read unmasked', async () => {
    const logged = await signedInAffiliate(stack, project);
    const start = stack.logs.lines.length;
    await logged.submit(w9({ tax_id_number: '234-56-7891' }));
    await stack.api.get(paths(logged).taxStatus, { key: project.keys.admin });
    await logged.submit(w9({ tax_id_number: '234-56-78' }));
    const text = stack.logs.lines.slice(start).join('\n');

    expect(text).toContain('tax info submitted');
    expect(text).toContain('unmasked tax info read (audited)');
    for (const form of ['234-56-7891', '234567891', '234-56-78', '2345678']) expect(text).not.toContain(form);
  });

  describe('who may see whose tax info', () => {
    it('gives a session token its own address’s tax info only', async () => {
      const intruder = await signedInAffiliate(stack, project);
      const mine = await intruder.taxInfo();
      expect(mine.status).toBe(404);
      expect((await intruder.status()).body.status).toBe('not_submitted');

      const written = await intruder.submit(w9({ legal_name: 'Mallory' }));
      expect(written.body.user_identifier).toBe(intruder.wallet.address);
      expect((await affiliate.taxInfo()).body).toMatchObject({ id: recordId, legal_name: 'Ada Lovelace' });

      const aimed = await intruder.submit({ ...w9(), user_identifier: affiliate.wallet.address });
      expect(aimed.status).toBe(400);
      expect(aimed.body.details).toEqual([{ field: 'user_identifier', reason: 'is not a known field' }]);
    });

    it('keeps a wallet’s tax info apart per project', async () => {
      const elsewhere = await createProject(stack);
      const sameWallet = await signedInAffiliate(stack, elsewhere, affiliate.wallet);
      expect((await sameWallet.taxInfo()).status).toBe(404);
      expect((await sameWallet.status()).body.status).toBe('not_required');
    });

    it('answers 404 to an admin key of another project on every tax endpoint, and 403 to other roles', async () => {
      const outsider = await createProject(stack);
      const p = paths(affiliate);
      const calls = [
        () => stack.api.get(p.taxStatus, { key: outsider.keys.admin }),
        () => stack.api.post(p.approve, { key: outsider.keys.admin }),
        () => stack.api.post(p.revoke, { key: outsider.keys.admin, body: { reason: 'x' } }),
        () => stack.api.get(p.submissions, { key: outsider.keys.admin }),
        () => stack.api.get(p.auditLog, { key: outsider.keys.admin }),
        () => stack.api.get(p.settings, { key: outsider.keys.admin }),
      ];
      for (const call of calls) {
        const response = await call();
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('PROJECT_NOT_FOUND');
      }
      expect((await stack.api.post(p.approve, { key: project.keys.service })).status).toBe(403);
      expect((await stack.api.get(p.submissions, { key: project.keys.readOnly })).status).toBe(403);
      expect((await stack.api.get(p.taxStatus, { key: await affiliate.token() })).status).toBe(401);
      expect((await affiliate.status()).body.status).toBe('submitted');
    });
  });
});
