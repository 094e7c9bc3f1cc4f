import { randomUUID } from 'node:crypto';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { newAffiliate, newProject } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const ADMIN = randomUUID();

/**
 * Flagging on the domain (docs/affiliates.md#flagged-affiliates): races of flags and of a flag with a
 * suspension leave one open period and one event per change, and each change's event says where the
 * status came from. No relay runs here: events stay in the outbox.
 */
describe('flagged affiliates (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
    harness.clock.set(START);
  });
  afterAll(() => harness.stop());

  const affiliates = () => harness.domain.affiliates;
  const statusEvents = async (affiliateId: string) =>
    (
      await harness.sql.query(
        `SELECT payload->>'from' AS "from", payload->>'to' AS "to", payload->>'reason' AS reason FROM agency.outbox
         WHERE type = 'agency.affiliate.status_changed' AND payload->>'affiliate_id' = $1 ORDER BY seq`,
        [affiliateId],
      )
    ).rows;
  const flagPeriods = async (affiliateId: string) =>
    (
      await harness.sql.query(
        'SELECT reason, flagged_by, unflagged_at IS NOT NULL AS closed, unflagged_by FROM agency.affiliate_flags WHERE affiliate_id = $1 ORDER BY id',
        [affiliateId],
      )
    ).rows;

  it('opens one period and writes one event however many flags race; every one answers the flagged affiliate', async () => {
    const projectId = newProject();
    const { user, affiliate } = await newAffiliate(harness, projectId);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => affiliates().flag(projectId, user, `reason ${index}`, ADMIN)));
    const reasons = new Set(answers.map((answer) => answer.flagReason));
    expect(reasons.size).toBe(1);
    expect(answers.every((answer) => answer.status === 'flagged')).toBe(true);
    expect(await flagPeriods(affiliate.id)).toEqual([{ reason: [...reasons][0], flagged_by: ADMIN, closed: false, unflagged_by: null }]);
    expect(await statusEvents(affiliate.id)).toEqual([{ from: 'active', to: 'flagged', reason: [...reasons][0] }]);

    const unflagged = await Promise.all(Array.from({ length: 5 }, () => affiliates().unflag(projectId, user, ADMIN)));
    expect(unflagged.map((answer) => answer.status)).toEqual(Array(5).fill('active'));
    expect(await flagPeriods(affiliate.id)).toMatchObject([{ closed: true, unflagged_by: ADMIN }]);
    expect(await statusEvents(affiliate.id)).toHaveLength(2);
  });

  it('settles a flag racing a suspension either way: suspended in the end, no flag left open', async () => {
    for (let round = 0; round < 5; round++) {
      const projectId = newProject();
      const { user, affiliate } = await newAffiliate(harness, projectId);
      const [flagged, suspended] = await Promise.allSettled([
        affiliates().flag(projectId, user, 'odd', ADMIN),
        affiliates().suspend(projectId, user, 'fraud', ADMIN),
      ]);
      expect(suspended.status).toBe('fulfilled');
      expect((await affiliates().get(projectId, user)).status).toBe('suspended');
      expect((await flagPeriods(affiliate.id)).every((period) => period.closed)).toBe(true);
      const events = await statusEvents(affiliate.id);
      if (flagged.status === 'fulfilled') {
        // The flag landed first: the suspension ended it.
        expect(events).toEqual([
          { from: 'active', to: 'flagged', reason: 'odd' },
          { from: 'flagged', to: 'suspended', reason: 'fraud' },
        ]);
      } else {
        expect(flagged.reason).toMatchObject({ code: 'AFFILIATE_SUSPENDED' });
        expect(events).toEqual([{ from: 'active', to: 'suspended', reason: 'fraud' }]);
      }
    }
  });

  it('refuses a flag without a reason, or with one past 500 characters, and of a user who is no affiliate, writing nothing', async () => {
    const projectId = newProject();
    const { user, affiliate } = await newAffiliate(harness, projectId);
    for (const reason of ['', '   ', 'x'.repeat(501)]) {
      await expect(affiliates().flag(projectId, user, reason, ADMIN)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'reason' }],
      });
    }
    await expect(
      affiliates().flag(projectId, { identifier: `0x${'1'.repeat(40)}`, identifierType: 'evm_address' }, 'why', ADMIN),
    ).rejects.toMatchObject({
      code: 'AFFILIATE_NOT_FOUND',
    });
    expect(await flagPeriods(affiliate.id)).toEqual([]);
    expect(await statusEvents(affiliate.id)).toEqual([]);
  });
});
