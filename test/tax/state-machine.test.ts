import { createProject, type TestProject } from '../helpers/fixtures';
import { startStack, type TestStack } from '../helpers/stack';
import {
  adminPaths,
  type Affiliate,
  requireTaxInfo,
  signedInAffiliate,
  statusEvents,
  taxRecords,
  w8ben,
  w9,
} from './tax-forms';

const START = '2026-11-21T12:00:00.000Z';

/** The tax status state machine of specification §3.1, transition by transition, through HTTP. */
describe('tax status transitions', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    stack = await startStack();
    project = await createProject(stack);
    await requireTaxInfo(stack, project);
  });
  afterAll(() => stack.stop());
  afterEach(() => stack.clock.set(START));

  const approve = (affiliate: Affiliate) =>
    stack.api.post(adminPaths(project, affiliate.wallet.address).approve, { key: project.keys.admin });
  const revoke = (affiliate: Affiliate, reason = 'The legal name does not match the signature') =>
    stack.api.post(adminPaths(project, affiliate.wallet.address).revoke, { key: project.keys.admin, body: { reason } });
  const current = async (affiliate: Affiliate) =>
    (await taxRecords(stack, project.id)).filter((row) => row.identifier === affiliate.wallet.address);

  const expectRefused = (response: { status: number; body: { code: string; message: string } }, message: RegExp) => {
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('TAX_INFO_INVALID_TRANSITION');
    expect(response.body.message).toMatch(message);
  };

  it('starts at not_submitted when the project requires tax info (and GET tax-info is 404)', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const status = await affiliate.status();
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ status: 'not_submitted', form_type: null, submitted_at: null, approved_at: null, expires_at: null, revoked_reason: null });
    const info = await affiliate.taxInfo();
    expect(info.status).toBe(404);
    expect(info.body.code).toBe('TAX_INFO_NOT_FOUND');
  });

  it('not_submitted -> submitted: a submission answers 201 with the masked record and records the change', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const submitted = await affiliate.submit(w9());

    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ status: 'submitted', form_type: 'w9', user_identifier: affiliate.wallet.address, submitted_at: START });
    expect((await affiliate.status()).body).toEqual({
      status: 'submitted',
      form_type: 'w9',
      submitted_at: START,
      approved_at: null,
      expires_at: null,
      revoked_reason: null,
    });
    expect(await statusEvents(stack, project.id, affiliate.wallet.address)).toEqual([
      expect.objectContaining({ from_status: 'not_submitted', to_status: 'submitted', actor_type: 'affiliate', actor_id: affiliate.wallet.address }),
    ]);
  });

  it('submitted -> submitted: a resubmission replaces the current record and keeps the earlier one as history', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const first = await affiliate.submit(w9());
    stack.clock.advance(60_000);
    const second = await affiliate.submit(w9({ legal_name: 'Augusta Ada King' }));

    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await affiliate.taxInfo()).body).toMatchObject({ id: second.body.id, legal_name: 'Augusta Ada King', status: 'submitted' });
    const rows = await current(affiliate);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ id: first.body.id, status: 'submitted', superseded_by: second.body.id });
    expect(rows[0].superseded_at).toEqual(stack.clock.now());
    expect(rows[1]).toMatchObject({ id: second.body.id, status: 'submitted', superseded_at: null });
  });

  it('submitted -> approved: approve answers 200 with the new status; a W-9 gets no expiry', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
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
    const events = await statusEvents(stack, project.id, affiliate.wallet.address);
    expect(events[1]).toMatchObject({ from_status: 'submitted', to_status: 'approved', actor_type: 'admin', actor_id: project.keyIds.admin });
  });

  it('approved: a new submission, a second approval are refused with 409 and change nothing', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    await approve(affiliate);
    const before = await current(affiliate);

    expectRefused(await affiliate.submit(w9({ legal_name: 'Someone Else' })), /approved/);
    expectRefused(await approve(affiliate), /only submitted tax info can be approved; this tax info is approved/);
    expect(await current(affiliate)).toEqual(before);
    expect((await affiliate.status()).body.status).toBe('approved');
  });

  it('approved -> revoked: revoke answers 200, and the affiliate sees the reason', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    await approve(affiliate);
    const revoked = await revoke(affiliate, 'TIN does not match IRS records');

    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_reason: 'TIN does not match IRS records' });
    expect((await affiliate.status()).body).toMatchObject({ status: 'revoked', revoked_reason: 'TIN does not match IRS records' });
    expect((await affiliate.taxInfo()).body).toMatchObject({ status: 'revoked', revoked_at: START, revoked_reason: 'TIN does not match IRS records' });
    expect((await statusEvents(stack, project.id, affiliate.wallet.address)).at(-1)).toMatchObject({
      from_status: 'approved',
      to_status: 'revoked',
      reason: 'TIN does not match IRS records',
      actor_id: project.keyIds.admin,
    });
  });

  it('submitted -> revoked: a form can be refused before approval', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    const revoked = await revoke(affiliate);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
  });

  it('revoked: approving or revoking again is refused with 409', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    await revoke(affiliate);
    expectRefused(await approve(affiliate), /this tax info is revoked/);
    expectRefused(await revoke(affiliate), /only submitted or approved tax info can be revoked; this tax info is revoked/);
  });

  it('revoked -> submitted: a resubmission starts a new record, and approval then works', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const first = await affiliate.submit(w9());
    await revoke(affiliate);
    const again = await affiliate.submit(w9());

    expect(again.status).toBe(201);
    expect((await affiliate.status()).body).toMatchObject({ status: 'submitted', revoked_reason: null });
    expect((await approve(affiliate)).body.status).toBe('approved');
    const rows = await current(affiliate);
    expect(rows.map((row) => [row.id, row.status, row.superseded_by])).toEqual([
      [first.body.id, 'revoked', again.body.id],
      [again.body.id, 'approved', null],
    ]);
    expect((await statusEvents(stack, project.id, affiliate.wallet.address)).map((event) => `${event.from_status}->${event.to_status}`)).toEqual([
      'not_submitted->submitted',
      'submitted->revoked',
      'revoked->submitted',
      'submitted->approved',
    ]);
  });

  it('approved -> expired -> submitted: an expired W-8 can be neither approved nor revoked, only resubmitted', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const first = await affiliate.submit(w8ben());
    const approved = await approve(affiliate);
    expect(approved.body.expires_at).toBe('2029-11-20T00:00:00.000Z');

    stack.clock.set('2029-11-20T00:00:00.000Z');
    expect((await affiliate.status()).body).toMatchObject({ status: 'expired', expires_at: '2029-11-20T00:00:00.000Z' });
    expectRefused(await approve(affiliate), /this tax info is expired/);
    expectRefused(await revoke(affiliate), /this tax info is expired/);

    const again = await affiliate.submit(w8ben({ signature_date: '2029-11-19' }));
    expect(again.status).toBe(201);
    expect((await affiliate.status()).body).toMatchObject({ status: 'submitted', expires_at: null });
    const rows = await current(affiliate);
    expect(rows[0]).toMatchObject({ id: first.body.id, status: 'expired', superseded_by: again.body.id });
    expect(rows[0].expired_at).toEqual(new Date('2029-11-20T00:00:00.000Z'));
    expect((await statusEvents(stack, project.id, affiliate.wallet.address)).map((event) => `${event.from_status}->${event.to_status}`)).toEqual([
      'not_submitted->submitted',
      'submitted->approved',
      'approved->expired',
      'expired->submitted',
    ]);
  });

  it('answers 404 TAX_INFO_NOT_FOUND to approve or revoke a user who never submitted', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    for (const response of [await approve(affiliate), await revoke(affiliate)]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('TAX_INFO_NOT_FOUND');
    }
  });

  it('refuses a revocation without a reason with 400 naming the field', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    for (const body of [{}, { reason: '   ' }]) {
      const response = await stack.api.post(adminPaths(project, affiliate.wallet.address).revoke, { key: project.keys.admin, body });
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual([{ field: 'reason', reason: expect.any(String) }]);
    }
    expect((await affiliate.status()).body.status).toBe('submitted');
  });

  it('finds the affiliate by address in any letter case', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    const response = await stack.api.post(adminPaths(project, affiliate.wallet.checksumAddress).approve, { key: project.keys.admin });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('approved');
  });

  it('lets exactly one of two simultaneous approvals through', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    await affiliate.submit(w9());
    const answers = await Promise.all([approve(affiliate), approve(affiliate)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await statusEvents(stack, project.id, affiliate.wallet.address)).filter((event) => event.to_status === 'approved')).toHaveLength(1);
  });

  it('keeps one current record when the same affiliate submits twice at once', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const answers = await Promise.all([affiliate.submit(w9()), affiliate.submit(w9())]);
    expect(answers.map((answer) => answer.status)).toContain(201);
    for (const refused of answers.filter((answer) => answer.status !== 201)) expect(refused.status).toBe(409);
    expect((await current(affiliate)).filter((row) => row.superseded_at === null)).toHaveLength(1);
  });

  it('reads not_required whenever the project does not require tax info, whatever was submitted', async () => {
    const relaxed = await createProject(stack);
    const affiliate = await signedInAffiliate(stack, relaxed);
    expect((await affiliate.status()).body.status).toBe('not_required');
    const submitted = await affiliate.submit(w9());
    expect(submitted.status).toBe(201);
    expect(submitted.body.status).toBe('submitted');
    expect((await affiliate.status()).body).toMatchObject({ status: 'not_required', form_type: 'w9', submitted_at: START });

    await requireTaxInfo(stack, relaxed);
    expect((await affiliate.status()).body.status).toBe('submitted');
    await stack.api.patch(adminPaths(relaxed, '0x').settings, { key: relaxed.keys.admin, body: { require_tax_info: false } });
    expect((await affiliate.status()).body.status).toBe('not_required');
  });
});
