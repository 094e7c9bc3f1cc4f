import { randomUUID } from 'node:crypto';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { batchOf, conversion, movementsOf, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

type User = { identifier: string; identifierType: string };

/**
 * Audiences as allowlists (specification §1) in the claim domain, with fakes of the audience and
 * agency services (test/helpers/fakes): payout terms name, per side, an audience whose members alone earn that side's
 * reward (validated there when saved); a batch asks the audience service once for its memberships
 * (static or dynamic entries), and never when its terms name no allowlist; the master's spread
 * follows its affiliate; what was decided is frozen on the conversion.
 */
describe('allowlists of payout terms (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());
  beforeEach(() => {
    harness.audiences.calls.length = 0;
  });

  const audience = (projectId: string) => harness.audiences.create(projectId);
  /** A member of the audience: by a static or a dynamic entry alike (test/medium/audience/memberships.test.ts holds that rule). */
  const enter = (projectId: string, segmentId: string, user: User) => harness.audiences.add(projectId, segmentId, user);

  const eligibilityOf = async (projectId: string, id: string) => (await harness.domain.ledger.conversion(projectId, id)).eligibility;
  const membersCalls = () => harness.audiences.calls.filter((call) => call.method === 'members');

  describe('payout terms', () => {
    it('stores both allowlists, answers them, and clears them when left out', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const [users, affiliates] = [audience(projectId), audience(projectId)];
      const { record, created } = await harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, { endUser: { fixed: '1' }, endUserAllowlistAudienceId: users.id, affiliateAllowlistAudienceId: affiliates.id }),
      );
      expect(created).toBe(true);
      expect(record).toMatchObject({ endUserAllowlistAudienceId: users.id, affiliateAllowlistAudienceId: affiliates.id });
      expect(await harness.domain.terms.get(projectId, 'trade')).toMatchObject({
        endUserAllowlistAudienceId: users.id,
        affiliateAllowlistAudienceId: affiliates.id,
      });
      expect(harness.audiences.calls).toEqual([{ method: 'missing', asked: 2 }]);

      const { record: cleared } = await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { fixed: '1' } }));
      expect(cleared).toMatchObject({ endUserAllowlistAudienceId: null, affiliateAllowlistAudienceId: null });
      // Terms without allowlists ask the audience service nothing.
      expect(harness.audiences.calls).toHaveLength(1);
    });

    it('refuses an unknown, deleted or other project’s audience (AUDIENCE_NOT_FOUND naming the field) and stores nothing', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const deleted = audience(projectId);
      harness.audiences.delete(projectId, deleted.id);
      const foreign = audience((await newProject(harness)).projectId);
      const kept = audience(projectId);
      for (const [fields, field] of [
        [{ endUserAllowlistAudienceId: randomUUID() }, 'end_user_allowlist_audience_id'],
        [{ affiliateAllowlistAudienceId: deleted.id }, 'affiliate_allowlist_audience_id'],
        [{ endUserAllowlistAudienceId: kept.id, affiliateAllowlistAudienceId: foreign.id }, 'affiliate_allowlist_audience_id'],
      ] as const) {
        await expect(harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, fields))).rejects.toMatchObject({
          kind: 'invalid_argument',
          code: 'AUDIENCE_NOT_FOUND',
          details: [{ field, reason: 'names no audience of this project' }],
        });
      }
      await expect(harness.domain.terms.get(projectId, 'trade')).rejects.toMatchObject({ code: 'PAYOUT_TERMS_NOT_FOUND' });
    });

    it('refuses an allowlist that is no UUID (or empty) with the other field problems, before asking anyone', async () => {
      const { projectId, currencyId } = await newProject(harness);
      await expect(
        harness.domain.terms.put(
          projectId,
          'trade',
          termsInput(currencyId, { endUserAllowlistAudienceId: 'gold', affiliateAllowlistAudienceId: '', endUser: { bps: 10_001 } }),
        ),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([
          expect.objectContaining({ field: 'end_user_allowlist_audience_id' }),
          expect.objectContaining({ field: 'affiliate_allowlist_audience_id' }),
          expect.objectContaining({ field: 'end_user.bps' }),
        ]),
      });
      expect(harness.audiences.calls).toEqual([]);
    });
  });

  describe('paying a batch', () => {
    it('pays only end users on the end-user allowlist (static or dynamic entry), freezes who was checked, and asks once per batch', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const allowed = audience(projectId);
      await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { fixed: '5' }, endUserAllowlistAudienceId: allowed.id }));
      const [listed, matched, outsider] = [newUser(), newUser(), newUser()];
      enter(projectId, allowed.id, listed);
      enter(projectId, allowed.id, matched);
      harness.audiences.calls.length = 0;
      // The listed user converts twice: asked about once.
      const inputs = [conversion({ user: listed }), conversion({ user: matched }), conversion({ user: outsider }), conversion({ user: listed })];
      expect(await pay(harness, projectId, inputs)).toEqual({ recorded: 4, movements: 3 });
      expect(harness.audiences.calls).toEqual([{ method: 'members', asked: 3 }]);
      expect((await movementsOf(harness, projectId)).map((row) => [row.conversion_id, row.kind, row.identifier, row.amount]).sort()).toEqual(
        [
          [inputs[0]!.id, 'end_user_payout', listed.identifier, '5'],
          [inputs[1]!.id, 'end_user_payout', matched.identifier, '5'],
          [inputs[3]!.id, 'end_user_payout', listed.identifier, '5'],
        ].sort(),
      );
      const paid = { endUser: { allowlistAudienceId: allowed.id, eligible: true }, affiliate: null };
      expect(await eligibilityOf(projectId, inputs[0]!.id)).toEqual(paid);
      expect(await eligibilityOf(projectId, inputs[1]!.id)).toEqual(paid);
      expect(await eligibilityOf(projectId, inputs[2]!.id)).toEqual({
        endUser: { allowlistAudienceId: allowed.id, eligible: false },
        affiliate: null,
      });
      expect((await harness.domain.ledger.conversion(projectId, inputs[2]!.id)).status).toBe('processed');
    });

    it('pays an affiliate off the affiliate allowlist nothing and its master no spread, while a listed one earns both; end users are paid either way', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const partners = audience(projectId);
      await harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, { endUser: { fixed: '3' }, affiliate: { bps: 1_000 }, affiliateAllowlistAudienceId: partners.id }),
      );
      const master = newAffiliate(harness, projectId);
      const [listed, unlisted] = [newAffiliate(harness, projectId), newAffiliate(harness, projectId)];
      harness.agency.setMaster(projectId, listed.user, { user: master.user, spreadBps: 250 });
      harness.agency.setMaster(projectId, unlisted.user, { user: master.user, spreadBps: 250 });
      // The master is on no list: its spread follows its sub-affiliate's eligibility alone.
      enter(projectId, partners.id, listed.user);
      const [byListed, byUnlisted] = [newUser(), newUser()];
      refer(harness, projectId, byListed, listed.code);
      refer(harness, projectId, byUnlisted, unlisted.code);
      harness.clock.advance(1_000);
      const [paid, refused] = [conversion({ user: byListed, rewardBase: '10000' }), conversion({ user: byUnlisted, rewardBase: '10000' })];
      harness.audiences.calls.length = 0;
      await pay(harness, projectId, [paid, refused]);
      expect(harness.audiences.calls).toEqual([{ method: 'members', asked: 2 }]);
      const movements = (await movementsOf(harness, projectId)).map((row) => [row.conversion_id, row.kind, row.identifier, row.amount]);
      expect(movements.filter(([id]) => id === paid.id)).toEqual([
        [paid.id, 'affiliate_payout', listed.user.identifier, '1000'],
        [paid.id, 'agency_payout', master.user.identifier, '250'],
        [paid.id, 'end_user_payout', byListed.identifier, '3'],
      ]);
      expect(movements.filter(([id]) => id === refused.id)).toEqual([[refused.id, 'end_user_payout', byUnlisted.identifier, '3']]);
      expect(await eligibilityOf(projectId, paid.id)).toEqual({ endUser: null, affiliate: { allowlistAudienceId: partners.id, eligible: true } });
      const refusedRecord = await harness.domain.ledger.conversion(projectId, refused.id);
      expect(refusedRecord.eligibility).toEqual({ endUser: null, affiliate: { allowlistAudienceId: partners.id, eligible: false } });
      // Attribution is frozen all the same: who would have earned, and under whom.
      expect(refusedRecord.attribution).toMatchObject({ affiliate: { user: unlisted.user }, master: { spreadBps: 250 } });
    });

    it('keeps what was decided when membership changes later, and decides anew for conversions paid after', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const allowed = audience(projectId);
      await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { fixed: '5' }, endUserAllowlistAudienceId: allowed.id }));
      const [leaving, joining] = [newUser(), newUser()];
      enter(projectId, allowed.id, leaving);
      const first = [conversion({ user: leaving }), conversion({ user: joining })];
      await pay(harness, projectId, first);

      harness.audiences.remove(projectId, allowed.id, leaving);
      enter(projectId, allowed.id, joining);
      expect((await eligibilityOf(projectId, first[0]!.id)).endUser?.eligible).toBe(true);
      expect((await eligibilityOf(projectId, first[1]!.id)).endUser?.eligible).toBe(false);
      // A redelivery of the paid batch changes nothing.
      expect(await harness.domain.payouts.payBatch(await batchOf(harness, projectId, first[0]!.id))).toEqual({ recorded: 0, movements: 0 });

      const second = [conversion({ user: leaving }), conversion({ user: joining })];
      await pay(harness, projectId, second);
      expect((await eligibilityOf(projectId, second[0]!.id)).endUser?.eligible).toBe(false);
      expect((await eligibilityOf(projectId, second[1]!.id)).endUser?.eligible).toBe(true);
      expect((await movementsOf(harness, projectId)).map((row) => row.conversion_id).sort()).toEqual([first[0]!.id, second[1]!.id].sort());
    });

    it('pays nobody on a side whose allowlist audience was deleted after the terms were saved, and says so in the log', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const doomed = audience(projectId);
      await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { fixed: '5' }, endUserAllowlistAudienceId: doomed.id }));
      const user = newUser();
      enter(projectId, doomed.id, user);
      harness.audiences.delete(projectId, doomed.id);
      const input = conversion({ user });
      expect(await pay(harness, projectId, [input])).toEqual({ recorded: 1, movements: 0 });
      expect(await eligibilityOf(projectId, input.id)).toEqual({ endUser: { allowlistAudienceId: doomed.id, eligible: false }, affiliate: null });
      expect(harness.logs.text()).toContain('payout terms name allowlist audiences the project no longer has');
      expect(harness.logs.text()).toContain(doomed.id);
      // The terms keep naming it (they are not rewritten behind the admin's back).
      expect((await harness.domain.terms.get(projectId, 'trade')).endUserAllowlistAudienceId).toBe(doomed.id);
    });

    it('never asks the audience service for a batch whose terms name no allowlist, and asks once for a batch mixing both', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const allowed = audience(projectId);
      await harness.domain.terms.put(projectId, 'open', termsInput(currencyId, { endUser: { fixed: '2' } }));
      await harness.domain.terms.put(projectId, 'gated', termsInput(currencyId, { endUser: { fixed: '5' }, endUserAllowlistAudienceId: allowed.id }));
      harness.audiences.calls.length = 0;
      const open = [conversion({ name: 'open' }), conversion({ name: 'open' }), conversion({ name: 'nothing' })];
      expect(await pay(harness, projectId, open)).toEqual({ recorded: 3, movements: 2 });
      expect(harness.audiences.calls).toEqual([]);
      expect(await eligibilityOf(projectId, open[0]!.id)).toEqual({ endUser: null, affiliate: null });
      const { rows } = await harness.sql.query(
        'SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND (end_user_allowlist_audience_id IS NOT NULL OR affiliate_eligible IS NOT NULL)',
        [projectId],
      );
      expect(rows[0].n).toBe(0);

      const mixed = [conversion({ name: 'open' }), conversion({ name: 'gated' }), conversion({ name: 'gated' })];
      expect(await pay(harness, projectId, mixed)).toEqual({ recorded: 3, movements: 1 });
      expect(membersCalls()).toEqual([{ method: 'members', asked: 2 }]);
      expect(await eligibilityOf(projectId, mixed[0]!.id)).toEqual({ endUser: null, affiliate: null });
      expect(await eligibilityOf(projectId, mixed[1]!.id)).toEqual({
        endUser: { allowlistAudienceId: allowed.id, eligible: false },
        affiliate: null,
      });
    });
  });
});
