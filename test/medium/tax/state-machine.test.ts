import type { TaxDatabase } from '../../../services/tax/database';
import type { TaxDomain } from '../../../services/tax/composition';
import type { DomainHarness } from '../../helpers/domain';
import { startTaxDomain } from '../../helpers/tax-domain';
import { w8ben, w9 } from '../../tax/tax-forms';
import { ADMIN, formInput, newProject, newUser, recordsOf, transitions } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const refused = (message: RegExp) => ({ code: 'TAX_INFO_INVALID_TRANSITION', kind: 'conflict', message: expect.stringMatching(message) });

/** The tax status state machine of specification §3.1, transition by transition, on the domain and its tables. */
describe('tax status transitions (domain)', () => {
  let harness: DomainHarness<TaxDomain, TaxDatabase>;
  let projectId: string;
  beforeAll(async () => {
    harness = await startTaxDomain();
    projectId = await newProject(harness, { requireTaxInfo: true });
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const submit = (user: ReturnType<typeof newUser>, body = w9(), project = projectId) =>
    harness.domain.taxInfo.submit(project, user, formInput(body));
  const approve = (user: ReturnType<typeof newUser>) => harness.domain.review.approve(projectId, user, ADMIN);
  const revoke = (user: ReturnType<typeof newUser>, reason = 'The legal name does not match the signature') =>
    harness.domain.review.revoke(projectId, user, ADMIN, reason);
  const status = (user: ReturnType<typeof newUser>, project = projectId) => harness.domain.taxInfo.status(project, user);

  it('starts at not_submitted when the project requires tax info, with nothing to read', async () => {
    const user = newUser();
    expect(await status(user)).toMatchObject({ status: 'not_submitted', formType: null, submittedAt: null });
    await expect(harness.domain.taxInfo.getCurrent(projectId, user)).rejects.toMatchObject({ code: 'TAX_INFO_NOT_FOUND', kind: 'not_found' });
  });

  it('not_submitted -> submitted, recorded in the history as the affiliate', async () => {
    const user = newUser();
    const submitted = await submit(user);
    expect(submitted).toMatchObject({ status: 'submitted', formType: 'w9', submittedAt: new Date(START), taxIdNumberMasked: '*****6789' });
    expect(await status(user)).toMatchObject({ status: 'submitted', formType: 'w9', submittedAt: new Date(START), approvedAt: null });
    expect(await transitions(harness, projectId, user.identifier)).toEqual(['not_submitted->submitted']);
  });

  it('submitted -> submitted: a resubmission replaces the current record and keeps the earlier one as history', async () => {
    const user = newUser();
    const first = await submit(user);
    harness.clock.advance(60_000);
    const second = await submit(user, w9({ legal_name: 'Augusta Ada King' }));
    expect(second.id).not.toBe(first.id);
    expect(await harness.domain.taxInfo.getCurrent(projectId, user)).toMatchObject({ id: second.id, legalName: 'Augusta Ada King' });
    expect(await recordsOf(harness, projectId, user.identifier)).toEqual([
      expect.objectContaining({ id: first.id, status: 'submitted', superseded_by: second.id, superseded_at: harness.clock.now() }),
      expect.objectContaining({ id: second.id, status: 'submitted', superseded_at: null }),
    ]);
    expect(await transitions(harness, projectId, user.identifier)).toEqual(['not_submitted->submitted', 'submitted->submitted']);
  });

  it('submitted -> approved by the admin key that acts; a W-9 never expires', async () => {
    const user = newUser();
    await submit(user);
    harness.clock.advance(3_600_000);
    expect(await approve(user)).toMatchObject({ status: 'approved', approvedAt: new Date('2026-11-21T13:00:00.000Z'), expiresAt: null });
    const { rows } = await harness.sql.query('SELECT actor_type, actor_id FROM tax.tax_status_events WHERE identifier = $1 AND to_status = $2', [
      user.identifier,
      'approved',
    ]);
    expect(rows).toEqual([{ actor_type: 'admin', actor_id: ADMIN }]);
  });

  it('approved: a new submission and a second approval are refused and change nothing', async () => {
    const user = newUser();
    await submit(user);
    await approve(user);
    const before = await recordsOf(harness, projectId, user.identifier);
    await expect(submit(user, w9({ legal_name: 'Someone Else' }))).rejects.toMatchObject(refused(/approved and cannot be replaced/));
    await expect(approve(user)).rejects.toMatchObject(refused(/only submitted tax info can be approved; this tax info is approved/));
    expect(await recordsOf(harness, projectId, user.identifier)).toEqual(before);
    expect((await status(user)).status).toBe('approved');
  });

  it('approved -> revoked, with the reason the affiliate sees', async () => {
    const user = newUser();
    await submit(user);
    await approve(user);
    expect(await revoke(user, 'TIN does not match IRS records')).toMatchObject({
      status: 'revoked',
      revokedReason: 'TIN does not match IRS records',
    });
    expect(await harness.domain.taxInfo.getCurrent(projectId, user)).toMatchObject({ status: 'revoked', revokedAt: new Date(START) });
    const { rows } = await harness.sql.query('SELECT from_status, reason FROM tax.tax_status_events WHERE identifier = $1 AND to_status = $2', [
      user.identifier,
      'revoked',
    ]);
    expect(rows).toEqual([{ from_status: 'approved', reason: 'TIN does not match IRS records' }]);
  });

  it('submitted -> revoked: a form can be refused before approval', async () => {
    const user = newUser();
    await submit(user);
    expect((await revoke(user)).status).toBe('revoked');
  });

  it('revoked: approving or revoking again is refused', async () => {
    const user = newUser();
    await submit(user);
    await revoke(user);
    await expect(approve(user)).rejects.toMatchObject(refused(/this tax info is revoked/));
    await expect(revoke(user)).rejects.toMatchObject(refused(/only submitted or approved tax info can be revoked; this tax info is revoked/));
  });

  it('revoked -> submitted -> approved: a resubmission starts a new record, and its reason is gone', async () => {
    const user = newUser();
    const first = await submit(user);
    await revoke(user);
    const again = await submit(user);
    expect(await status(user)).toMatchObject({ status: 'submitted', revokedReason: null });
    expect((await approve(user)).status).toBe('approved');
    expect((await recordsOf(harness, projectId, user.identifier)).map((row) => [row.id, row.status, row.superseded_by])).toEqual([
      [first.id, 'revoked', again.id],
      [again.id, 'approved', null],
    ]);
    expect(await transitions(harness, projectId, user.identifier)).toEqual([
      'not_submitted->submitted',
      'submitted->revoked',
      'revoked->submitted',
      'submitted->approved',
    ]);
  });

  it('approved -> expired -> submitted: an expired W-8 can be neither approved nor revoked, only resubmitted', async () => {
    const user = newUser();
    const first = await submit(user, w8ben());
    // Approved at the start (12:00 on 21 November 2026): by default it expires 3 years after, to the instant.
    expect((await approve(user)).expiresAt).toEqual(new Date('2029-11-21T12:00:00.000Z'));

    harness.clock.set('2029-11-21T12:00:00.000Z');
    expect(await status(user)).toMatchObject({ status: 'expired', expiresAt: new Date('2029-11-21T12:00:00.000Z') });
    await expect(approve(user)).rejects.toMatchObject(refused(/this tax info is expired/));
    await expect(revoke(user)).rejects.toMatchObject(refused(/this tax info is expired/));

    const again = await submit(user, w8ben({ signature_date: '2029-11-20' }));
    expect(await status(user)).toMatchObject({ status: 'submitted', expiresAt: null });
    expect((await recordsOf(harness, projectId, user.identifier))[0]).toMatchObject({
      id: first.id,
      status: 'expired',
      superseded_by: again.id,
      expired_at: new Date('2029-11-21T12:00:00.000Z'),
    });
    expect(await transitions(harness, projectId, user.identifier)).toEqual([
      'not_submitted->submitted',
      'submitted->approved',
      'approved->expired',
      'expired->submitted',
    ]);
  });

  it('refuses to approve or revoke a user who never submitted (not found)', async () => {
    const user = newUser();
    await expect(approve(user)).rejects.toMatchObject({ code: 'TAX_INFO_NOT_FOUND' });
    await expect(revoke(user)).rejects.toMatchObject({ code: 'TAX_INFO_NOT_FOUND' });
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(501)],
    ['with control characters', 'no\u0007'],
  ])('refuses a revocation reason that is %s, naming reason, and changes nothing', async (_case, reason) => {
    const user = newUser();
    await submit(user);
    await expect(revoke(user, reason)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'reason', reason: expect.any(String) }],
    });
    expect((await status(user)).status).toBe('submitted');
  });

  it('finds the user by an address in any letter case, and refuses an invalid one naming user.identifier', async () => {
    const user = newUser();
    await submit(user);
    const checksummed = { ...user, identifier: `0x${user.identifier.slice(2).toUpperCase()}` };
    expect((await approve(checksummed)).status).toBe('approved');
    await expect(approve({ identifier: '0x12', identifierType: 'evm_address' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'user.identifier', reason: expect.any(String) }],
    });
  });

  it('lets exactly one of two simultaneous approvals through', async () => {
    const user = newUser();
    await submit(user);
    const outcomes = await Promise.allSettled([approve(user), approve(user)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: refused(/this tax info is approved/) });
    expect((await transitions(harness, projectId, user.identifier)).filter((change) => change.endsWith('->approved'))).toHaveLength(1);
  });

  it('keeps one current record when the same user submits twice at once', async () => {
    const user = newUser();
    const outcomes = await Promise.allSettled([submit(user), submit(user), submit(user)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ kind: 'conflict' });
    expect((await recordsOf(harness, projectId, user.identifier)).filter((row) => row.superseded_at === null)).toHaveLength(1);
  });

  it('reads not_required whenever the project does not require tax info, whatever was submitted', async () => {
    const relaxed = await newProject(harness);
    const user = newUser();
    expect((await status(user, relaxed)).status).toBe('not_required');
    expect((await submit(user, w9(), relaxed)).status).toBe('submitted');
    expect(await status(user, relaxed)).toMatchObject({ status: 'not_required', formType: 'w9', submittedAt: new Date(START) });
    await harness.domain.settings.update(relaxed, ['require_tax_info'], { requireTaxInfo: true });
    expect((await status(user, relaxed)).status).toBe('submitted');
    await harness.domain.settings.update(relaxed, ['require_tax_info'], { requireTaxInfo: false });
    expect((await status(user, relaxed)).status).toBe('not_required');
  });

  it('answers many users at once in the order asked, duplicates and unknown users included', async () => {
    const [submitted, approved, never] = [newUser(), newUser(), newUser()];
    await submit(submitted);
    await submit(approved);
    await approve(approved);
    const statuses = await harness.domain.taxInfo.statuses(projectId, [submitted, never, approved, never]);
    expect(statuses.map((one) => [one.user.identifier, one.status])).toEqual([
      [submitted.identifier, 'submitted'],
      [never.identifier, 'not_submitted'],
      [approved.identifier, 'approved'],
      [never.identifier, 'not_submitted'],
    ]);
  });
});
