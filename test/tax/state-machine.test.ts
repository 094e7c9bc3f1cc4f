import { useStackWithProject } from '../helpers/fixtures';
import { adminPaths, type Affiliate, NOT_SUBMITTED, requireTaxInfo, signedInAffiliate, statusEvents, w9 } from './tax-forms';

const START = '2026-11-21T12:00:00.000Z';

/**
 * The tax status state machine through HTTP: what crosses the boundary (bodies, status codes, who
 * acts). Every transition and refusal of specification §3.1 is tested on the domain in
 * test/medium/tax/state-machine.test.ts.
 */
describe('tax status transitions over HTTP', () => {
  const { stack, project } = useStackWithProject();
  beforeAll(() => requireTaxInfo(stack, project));

  const approve = (affiliate: Affiliate, address = affiliate.wallet.address) =>
    stack.api.post(adminPaths(project, address).approve, { key: project.keys.admin });
  const revoke = (affiliate: Affiliate, body: unknown = { reason: 'TIN does not match IRS records' }) =>
    stack.api.post(adminPaths(project, affiliate.wallet.address).revoke, { key: project.keys.admin, body });

  it('answers not_submitted, and 404 TAX_INFO_NOT_FOUND for the form, before anything is submitted', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const status = await affiliate.status();
    expect(status.status).toBe(200);
    expect(status.body).toEqual(NOT_SUBMITTED);
    const info = await affiliate.taxInfo();
    expect(info.status).toBe(404);
    expect(info.body).toEqual({ status: 404, code: 'TAX_INFO_NOT_FOUND', message: expect.any(String), details: [] });
  });

  it('submits (201), approves (200) as the admin key that calls, and the affiliate reads the new status', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const submitted = await affiliate.submit(w9());
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ status: 'submitted', form_type: 'w9', user_identifier: affiliate.wallet.address, submitted_at: START });

    stack.clock.advance(3_600_000);
    const approved = await approve(affiliate);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      status: 'approved',
      form_type: 'w9',
      submitted_at: START,
      approved_at: '2026-11-21T13:00:00.000Z',
      expires_at: null,
      revoked_reason: null,
    });
    expect((await affiliate.status()).body.status).toBe('approved');
    expect(await statusEvents(stack, project.id, affiliate.wallet.address)).toEqual([
      expect.objectContaining({ to_status: 'submitted', actor_type: 'affiliate', actor_id: affiliate.wallet.address }),
      expect.objectContaining({ to_status: 'approved', actor_type: 'admin', actor_id: project.keyIds.admin }),
    ]);
    stack.clock.set(START);
  });

  it('revokes (200), and the affiliate sees the reason on its status and its form', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    const revoked = await revoke(affiliate);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_reason: 'TIN does not match IRS records' });
    expect((await affiliate.status()).body).toMatchObject({ status: 'revoked', revoked_reason: 'TIN does not match IRS records' });
    expect((await affiliate.taxInfo()).body).toMatchObject({
      status: 'revoked',
      revoked_at: START,
      revoked_reason: 'TIN does not match IRS records',
    });
  });

  it('refuses a transition the state forbids with 409 TAX_INFO_INVALID_TRANSITION, saying the state', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    await revoke(affiliate);
    const refused = await approve(affiliate);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      status: 409,
      code: 'TAX_INFO_INVALID_TRANSITION',
      message: 'only submitted tax info can be approved; this tax info is revoked',
      details: [],
    });
  });

  it('answers 404 TAX_INFO_NOT_FOUND to approve a user who never submitted', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const response = await approve(affiliate);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('TAX_INFO_NOT_FOUND');
  });

  it('refuses a revocation without a reason with 400 naming the field, at the edge and in the service', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    for (const body of [{}, { reason: '   ' }]) {
      const response = await revoke(affiliate, body);
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual([{ field: 'reason', reason: expect.any(String) }]);
    }
    expect((await affiliate.status()).body.status).toBe('submitted');
  });

  it('finds the affiliate by an address in the path in any letter case', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    const response = await approve(affiliate, affiliate.wallet.checksumAddress);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('approved');
  });

  it('lists one user’s current record, masked and unaudited, by user_identifier in any letter case', async () => {
    const [mine, other] = [await signedInAffiliate(stack, project), await signedInAffiliate(stack, project)];
    await mine.submit(w9());
    await other.submit(w9());
    const { submissions, auditLog } = adminPaths(project, '0x');
    const listed = await stack.api.get(`${submissions}?user_identifier=${mine.wallet.checksumAddress}`, { key: project.keys.admin });
    expect(listed.status).toBe(200);
    expect(listed.body.total_results).toBe(1);
    expect(listed.body.results).toEqual([
      expect.objectContaining({
        user_identifier: mine.wallet.address,
        form_type: 'w9',
        status: 'submitted',
        tax_id_number: expect.stringMatching(/^\*+\d{4}$/),
      }),
    ]);
    // With a status that is not the user's, nothing.
    const approvedOnly = await stack.api.get(`${submissions}?user_identifier=${mine.wallet.address}&status=approved`, { key: project.keys.admin });
    expect(approvedOnly.body).toMatchObject({ total_results: 0, results: [] });
    // The masked read is not the audited one.
    expect((await stack.api.get(auditLog, { key: project.keys.admin })).body.total_results).toBe(0);
    const bad = await stack.api.get(`${submissions}?user_identifier=not-an-address`, { key: project.keys.admin });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, code: expect.any(String), message: expect.stringContaining('user') });
  });
});
