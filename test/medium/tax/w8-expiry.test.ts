import type { TaxDomain } from '../../../services/tax/composition';
import type { TaxDatabase } from '../../../services/tax/database';
import type { DomainHarness } from '../../helpers/domain';
import { startTaxDomain } from '../../helpers/tax-domain';
import { w8ben, w8bene, w9 } from '../../tax/tax-forms';
import { ADMIN, formInput, historyOf, newProject, newUser, recordsOf } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const DAY = 24 * 3_600_000;

/** W-8 expiry on the domain: reads at the boundary instant, and the sweep's step (the rules' arithmetic: test/unit/tax/w8-expiry.test.ts). */
describe('W-8 expiry (domain)', () => {
  let harness: DomainHarness<TaxDomain, TaxDatabase>;
  beforeAll(async () => {
    harness = await startTaxDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  async function approvedUser(projectId: string, body: Record<string, unknown>) {
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(body));
    const approved = await harness.domain.review.approve(projectId, user, ADMIN);
    return { user, approved };
  }
  const currentRow = async (projectId: string, identifier: string) =>
    (await recordsOf(harness, projectId, identifier)).find((row) => row.superseded_at === null);
  const expiredEvents = async (projectId: string, identifier: string) =>
    (await historyOf(harness, projectId, identifier)).filter((event) => event.to_status === 'expired');

  describe.each([
    // The project never chose a rule and follows the default (approved at START).
    ['default', 'w8ben', '2026-03-10', '2029-11-21T12:00:00.000Z'],
    ['three_years_from_approval', 'w8bene', '2026-11-20', '2029-11-21T12:00:00.000Z'],
    ['three_years', 'w8ben', '2026-03-10', '2029-03-10T00:00:00.000Z'],
    ['irs_calendar', 'w8bene', '2026-03-10', '2030-01-01T00:00:00.000Z'],
  ])('under the %s rule (%s signed %s)', (rule, formType, signedOn, expiresAt) => {
    let projectId: string;
    let user: ReturnType<typeof newUser>;
    const at = (offsetMs: number) => new Date(new Date(expiresAt).getTime() + offsetMs);
    const status = () => harness.domain.taxInfo.status(projectId, user);

    beforeAll(async () => {
      harness.clock.set(START);
      projectId = await newProject(harness, { requireTaxInfo: true, w8ExpiryRule: rule === 'default' ? undefined : rule });
      const approved = await approvedUser(projectId, (formType === 'w8ben' ? w8ben : w8bene)({ signature_date: signedOn }));
      user = approved.user;
      expect(approved.approved.expiresAt).toEqual(new Date(expiresAt));
    });

    it('is approved a day before expires_at, and the sweep leaves it so', async () => {
      harness.clock.set(at(-DAY));
      expect(await status()).toMatchObject({ status: 'approved', expiresAt: new Date(expiresAt) });
      await harness.domain.expiry.expireDue();
      expect((await currentRow(projectId, user.identifier)).status).toBe('approved');
      expect(await expiredEvents(projectId, user.identifier)).toEqual([]);
    });

    it('is still approved one millisecond before expires_at', async () => {
      harness.clock.set(at(-1));
      expect((await status()).status).toBe('approved');
      await harness.domain.expiry.expireDue();
      expect((await currentRow(projectId, user.identifier)).status).toBe('approved');
    });

    it('reads expired at expires_at itself, before the sweep has written it down', async () => {
      harness.clock.set(at(0));
      expect(await status()).toMatchObject({ status: 'expired', formType, expiresAt: new Date(expiresAt) });
      expect((await harness.domain.taxInfo.getCurrent(projectId, user)).status).toBe('expired');
      expect((await currentRow(projectId, user.identifier)).status).toBe('approved');
    });

    it('is written down as expired by the sweep at expires_at, with one history entry by the system', async () => {
      harness.clock.set(at(0));
      expect(await harness.domain.expiry.expireDue()).toBeGreaterThanOrEqual(1);
      expect(await currentRow(projectId, user.identifier)).toMatchObject({ status: 'expired', expired_at: new Date(expiresAt) });
      expect(await expiredEvents(projectId, user.identifier)).toEqual([
        expect.objectContaining({ from_status: 'approved', actor_type: 'system', actor_id: null, occurred_at: new Date(expiresAt) }),
      ]);
    });

    it('stays expired a day after, and a repeated sweep records nothing twice', async () => {
      harness.clock.set(at(DAY));
      await harness.domain.expiry.expireDue();
      expect(await harness.domain.expiry.expireDue()).toBe(0);
      expect((await status()).status).toBe('expired');
      expect(await expiredEvents(projectId, user.identifier)).toHaveLength(1);
      const listed = await harness.domain.review.list(projectId, 'expired', { page: 1, pageSize: 25, offset: 0 });
      expect(listed.records.map((record) => record.user.identifier)).toEqual([user.identifier]);
    });
  });

  it('never expires a W-9, however late', async () => {
    const projectId = await newProject(harness, { requireTaxInfo: true });
    const { user, approved } = await approvedUser(projectId, w9());
    expect(approved.expiresAt).toBeNull();
    harness.clock.set('2076-11-21T12:00:00.000Z');
    await harness.domain.expiry.expireDue();
    expect((await harness.domain.taxInfo.status(projectId, user)).status).toBe('approved');
    expect((await currentRow(projectId, user.identifier)).status).toBe('approved');
  });

  it('counts an approved W-8 past expires_at as expired in the review list before the sweep', async () => {
    const projectId = await newProject(harness);
    const { user } = await approvedUser(projectId, w8ben({ signature_date: '2024-01-15' }));
    harness.clock.set('2029-11-21T12:00:00.000Z');
    const page = { page: 1, pageSize: 25, offset: 0 };
    expect((await harness.domain.review.list(projectId, 'approved', page)).total).toBe(0);
    expect((await harness.domain.review.list(projectId, 'expired', page)).records.map((record) => record.user.identifier)).toEqual([user.identifier]);
  });

  it('under a rule counted from the signature, refuses to approve a W-8 that expired while it waited for review, and leaves it submitted', async () => {
    const projectId = await newProject(harness, { w8ExpiryRule: 'three_years' });
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: '2023-11-25' })));
    harness.clock.set('2026-11-25T00:00:00.000Z');
    await expect(harness.domain.review.approve(projectId, user, ADMIN)).rejects.toMatchObject({ code: 'TAX_FORM_EXPIRED', kind: 'conflict' });
    expect((await harness.domain.taxInfo.getCurrent(projectId, user)).status).toBe('submitted');
  });

  it('by default, takes and approves a W-8 signed long ago: valid 3 years from its approval, whatever its signature date', async () => {
    const projectId = await newProject(harness);
    const user = newUser();
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: '2019-06-30' })));
    harness.clock.advance(DAY);
    const approved = await harness.domain.review.approve(projectId, user, ADMIN);
    expect(approved).toMatchObject({ status: 'approved', expiresAt: new Date('2029-11-22T12:00:00.000Z') });
  });

  it('under a rule counted from the signature, refuses a W-8 signed so long ago that it would have expired already', async () => {
    const projectId = await newProject(harness, { w8ExpiryRule: 'three_years' });
    await expect(harness.domain.taxInfo.submit(projectId, newUser(), formInput(w8ben({ signature_date: '2019-06-30' })))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field: 'signature_date' })],
    });
  });

  it('applies a changed expiry rule to later approvals only', async () => {
    const projectId = await newProject(harness);
    const before = await approvedUser(projectId, w8ben({ signature_date: '2026-03-10' }));
    await harness.domain.settings.update(projectId, ['w8_expiry_rule'], { w8ExpiryRule: 'irs_calendar' });
    const after = await approvedUser(projectId, w8ben({ signature_date: '2026-03-10' }));
    expect(before.approved.expiresAt).toEqual(new Date('2029-11-21T12:00:00.000Z'));
    expect(after.approved.expiresAt).toEqual(new Date('2030-01-01T00:00:00.000Z'));
    expect((await harness.domain.taxInfo.status(projectId, before.user)).expiresAt).toEqual(new Date('2029-11-21T12:00:00.000Z'));
  });

  it('replaces an approved W-8 once expired: the old record is written down as expired at expires_at', async () => {
    const projectId = await newProject(harness);
    const { user } = await approvedUser(projectId, w8ben({ signature_date: '2026-03-10' }));
    harness.clock.set('2029-11-21T12:00:00.000Z');
    await harness.domain.taxInfo.submit(projectId, user, formInput(w8ben({ signature_date: '2029-11-20' })));
    expect((await historyOf(harness, projectId, user.identifier)).map((event) => [event.from_status, event.to_status, event.actor_type])).toEqual([
      ['not_submitted', 'submitted', 'affiliate'],
      ['submitted', 'approved', 'admin'],
      ['approved', 'expired', 'system'],
      ['expired', 'submitted', 'affiliate'],
    ]);
  });
});
