import { DomainError } from '../../../services/rules/errors';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newCode, newProject, newUser } from './fixtures';

const at = (iso: string) => new Date(iso);
type Affiliate = Awaited<ReturnType<typeof newAffiliate>>;

/**
 * Referral levels, the agency's half (docs/claims.md#referral-levels): attribution answers the referring
 * affiliate's upline at the conversion's moment (levels 2..4, suspended ones left out), and no referral
 * may close a cycle of affiliates.
 */
describe('referral levels (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  const refer = (projectId: string, user: { identifier: string; identifierType: 'evm_address' }, code: string) =>
    harness.domain.referrals.refer(projectId, user, code);
  /** A chain of affiliates, each referred by the next one: chain[0] is level 1, chain[n] its level n+1. */
  async function chain(projectId: string, length: number, moments: string[] = []): Promise<Affiliate[]> {
    const affiliates: Affiliate[] = [];
    for (let n = 0; n < length; n++) affiliates.push(await newAffiliate(harness, projectId, `A${n}`));
    for (let n = 0; n + 1 < length; n++) {
      harness.clock.set(moments[n] ?? '2026-11-02T00:00:00.000Z');
      await refer(projectId, affiliates[n]!.user, affiliates[n + 1]!.code);
    }
    return affiliates;
  }
  const ancestorsOf = async (projectId: string, user: { identifier: string; identifierType: 'evm_address' }, moment: string) => {
    const view = await harness.domain.attribution.resolveOne(projectId, { user, at: at(moment) });
    return view.ancestors.map((ancestor) => [ancestor.level, ancestor.affiliate.id]);
  };

  describe('the chain', () => {
    it('answers levels 2, 3 and 4 in order and stops at 4 however long the chain', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const affiliates = await chain(projectId, 6);
      const user = newUser();
      await refer(projectId, user, affiliates[0]!.code);
      expect(await ancestorsOf(projectId, user, '2026-11-03T00:00:00.000Z')).toEqual([
        [2, affiliates[1]!.affiliate.id],
        [3, affiliates[2]!.affiliate.id],
        [4, affiliates[3]!.affiliate.id],
      ]);
      // The affiliate and user of each level are as the affiliates table has them.
      const view = await harness.domain.attribution.resolveOne(projectId, { user, at: at('2026-11-03T00:00:00.000Z') });
      expect(view.ancestors[0]).toEqual({ level: 2, affiliate: { id: affiliates[1]!.affiliate.id, user: affiliates[1]!.user } });
      // One level up the chain, the user of level 2 sees its own upline.
      expect(await ancestorsOf(projectId, affiliates[1]!.user, '2026-11-03T00:00:00.000Z')).toEqual([
        [2, affiliates[3]!.affiliate.id],
        [3, affiliates[4]!.affiliate.id],
        [4, affiliates[5]!.affiliate.id],
      ]);
    });

    it('answers a short chain as far as it goes, and none for an affiliate nobody referred', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const affiliates = await chain(projectId, 2);
      const [user, direct] = [newUser(), newUser()];
      await refer(projectId, user, affiliates[0]!.code);
      await refer(projectId, direct, affiliates[1]!.code);
      expect(await ancestorsOf(projectId, user, '2026-11-03T00:00:00.000Z')).toEqual([[2, affiliates[1]!.affiliate.id]]);
      expect(await ancestorsOf(projectId, direct, '2026-11-03T00:00:00.000Z')).toEqual([]);
    });

    it('leaves out a level suspended at the moment and keeps the levels above it; none when level 1 is suspended', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const affiliates = await chain(projectId, 4);
      const user = newUser();
      await refer(projectId, user, affiliates[0]!.code);
      harness.clock.set('2026-11-10T00:00:00.000Z');
      await harness.domain.affiliates.suspend(projectId, affiliates[2]!.user, 'review', null);
      harness.clock.set('2026-11-20T00:00:00.000Z');
      await harness.domain.affiliates.reactivate(projectId, affiliates[2]!.user, null);
      const all = [
        [2, affiliates[1]!.affiliate.id],
        [3, affiliates[2]!.affiliate.id],
        [4, affiliates[3]!.affiliate.id],
      ];
      expect(await ancestorsOf(projectId, user, '2026-11-09T23:59:59.999Z')).toEqual(all);
      expect(await ancestorsOf(projectId, user, '2026-11-10T00:00:00.000Z')).toEqual([all[0], all[2]]);
      expect(await ancestorsOf(projectId, user, '2026-11-19T23:59:59.999Z')).toEqual([all[0], all[2]]);
      expect(await ancestorsOf(projectId, user, '2026-11-20T00:00:00.000Z')).toEqual(all);
      // Level 1 suspended: nobody earns, so no upline either.
      harness.clock.set('2026-11-25T00:00:00.000Z');
      await harness.domain.affiliates.suspend(projectId, affiliates[0]!.user, 'review', null);
      const view = await harness.domain.attribution.resolveOne(projectId, { user, at: at('2026-11-26T00:00:00.000Z') });
      expect(view.outcome).toBe('affiliate_suspended');
      expect(view.ancestors).toEqual([]);
    });

    it('answers the chain at the moment: a level referred after it is not there yet', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      // A0 referred by A1 on Nov 5, A1 by A2 on Nov 10, A2 by A3 on Nov 15.
      const affiliates = await chain(projectId, 4, ['2026-11-05T00:00:00.000Z', '2026-11-10T00:00:00.000Z', '2026-11-15T00:00:00.000Z']);
      const user = newUser();
      harness.clock.set('2026-11-02T00:00:00.000Z');
      await refer(projectId, user, affiliates[0]!.code);
      const ids = affiliates.map((affiliate) => affiliate.affiliate.id);
      expect(await ancestorsOf(projectId, user, '2026-11-04T00:00:00.000Z')).toEqual([]);
      expect(await ancestorsOf(projectId, user, '2026-11-05T00:00:00.000Z')).toEqual([[2, ids[1]]]);
      expect(await ancestorsOf(projectId, user, '2026-11-12T00:00:00.000Z')).toEqual([
        [2, ids[1]],
        [3, ids[2]],
      ]);
      expect(await ancestorsOf(projectId, user, '2026-11-15T00:00:00.000Z')).toEqual([
        [2, ids[1]],
        [3, ids[2]],
        [4, ids[3]],
      ]);
      // A batch answers each item's chain at its own moment, in one statement (the bench measures it).
      const batch = await harness.domain.attribution.resolveBatch(projectId, [
        { user, at: at('2026-11-15T00:00:00.000Z') },
        { user, at: at('2026-11-06T00:00:00.000Z') },
        { user: affiliates[1]!.user, at: at('2026-11-15T00:00:00.000Z') },
      ]);
      expect(batch.map((item) => ('error' in item ? 'error' : item.ancestors.map((a) => a.level)))).toEqual([[2, 3, 4], [2], [2]]);
    });

    it('follows an ended referral no more: the chain stops where the referral was ended', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const affiliates = await chain(projectId, 3);
      const user = newUser();
      await refer(projectId, user, affiliates[0]!.code);
      await harness.domain.referrals.end(projectId, affiliates[1]!.user, affiliates[2]!.code, affiliates[2]!.user, { byUser: false, actorId: null });
      expect(await ancestorsOf(projectId, user, '2026-11-03T00:00:00.000Z')).toEqual([[2, affiliates[1]!.affiliate.id]]);
    });
  });

  describe('cycles are refused', () => {
    const refusal = { code: 'REFERRAL_CYCLE', kind: 'conflict' };

    it.each([1, 2, 3, 4, 6])('the top of a chain of %i links cannot be referred by its bottom', async (links) => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const affiliates = await chain(projectId, links + 1);
      const top = affiliates[links]!;
      const bottom = affiliates[0]!;
      await expect(refer(projectId, top.user, bottom.code)).rejects.toMatchObject(refusal);
      // Nothing was written: the top is still nobody's referral.
      expect(await harness.domain.referrals.referrer(projectId, top.user)).toBeUndefined();
      // Every affiliate in between cannot refer it either, at any depth.
      for (const middle of affiliates.slice(0, links)) await expect(refer(projectId, top.user, middle.code)).rejects.toMatchObject(refusal);
    });

    it('through any of the referrer’s codes, an invite code too', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const [below, above] = await chain(projectId, 2);
      const second = newCode('second');
      await harness.domain.affiliates.addCode(projectId, below!.user, second);
      await expect(refer(projectId, above!.user, second.toUpperCase())).rejects.toMatchObject(refusal);
      const [invite] = await harness.domain.inviteCodes.generate(projectId, below!.user, 1, null);
      await expect(refer(projectId, above!.user, invite!)).rejects.toMatchObject(refusal);
      expect(await harness.domain.inviteCodes.list(projectId, below!.user, { page: 1, pageSize: 10, offset: 0 })).toMatchObject({
        records: [{ uses: 0 }],
      });
    });

    it('lets branches that close no cycle through: siblings, cousins, the same user again, users that are no affiliate', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const [left, root] = await chain(projectId, 2);
      const right = await newAffiliate(harness, projectId, 'Right');
      await refer(projectId, right.user, root!.code);
      // A sibling's child is no ancestor of the other sibling.
      const cousin = await newAffiliate(harness, projectId, 'Cousin');
      expect((await refer(projectId, cousin.user, left!.code)).created).toBe(true);
      // The other branch's affiliate is referred already (by root): that answer stands, not a cycle.
      await expect(refer(projectId, right.user, left!.code)).rejects.toMatchObject({ code: 'ALREADY_REFERRED' });
      // A user that is no affiliate is referred by anyone.
      expect((await refer(projectId, newUser(), cousin.code)).created).toBe(true);
      // The root of the tree, referred by a newcomer, closes nothing: its chain gains a level 2... above the tree.
      const newcomer = await newAffiliate(harness, projectId, 'Newcomer');
      expect((await refer(projectId, root!.user, newcomer.code)).created).toBe(true);
      // ...and the newcomer, now above all of them, can be referred by none of them.
      for (const below of [root!, left!, right, cousin]) await expect(refer(projectId, newcomer.user, below.code)).rejects.toMatchObject(refusal);
    });

    it('a referral already in place answers as before, even from below', async () => {
      const projectId = newProject();
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const [below, above, top] = await chain(projectId, 3);
      // above is referred by top already; referring it again by below is ALREADY_REFERRED, not a cycle.
      await expect(refer(projectId, above!.user, below!.code)).rejects.toMatchObject({ code: 'ALREADY_REFERRED' });
      // top is referred by nobody: the cycle is the refusal.
      await expect(refer(projectId, top!.user, below!.code)).rejects.toMatchObject(refusal);
    });

    it('cycles are per project: the same wallets in another project are another chain', async () => {
      const [p1, p2] = [newProject(), newProject()];
      harness.clock.set('2026-11-01T00:00:00.000Z');
      const a = await newAffiliate(harness, p1, 'A');
      const b = await newAffiliate(harness, p1, 'B');
      await refer(p1, a.user, b.code);
      const a2 = await harness.domain.affiliates.create(p2, a.user, { name: 'A', code: newCode() });
      const b2Code = newCode();
      await harness.domain.affiliates.create(p2, b.user, { name: 'B', code: b2Code });
      // In p2, B's user referred by A closes nothing (A is nobody's referral there).
      expect((await refer(p2, b.user, a2.codes[0]!.code)).created).toBe(true);
      await expect(refer(p1, b.user, a.code)).rejects.toMatchObject(refusal);
    });

    it('two referrals that would together close a cycle, at once: exactly one is written', async () => {
      for (let round = 0; round < 5; round++) {
        const projectId = newProject();
        harness.clock.set('2026-11-01T00:00:00.000Z');
        const a = await newAffiliate(harness, projectId, 'A');
        const b = await newAffiliate(harness, projectId, 'B');
        const c = await newAffiliate(harness, projectId, 'C');
        // A chain of three closed at once from both ends: A by B, B by C, C by A.
        const results = await Promise.allSettled([
          refer(projectId, a.user, b.code),
          refer(projectId, b.user, c.code),
          refer(projectId, c.user, a.code),
        ]);
        const refused = results.filter((result) => result.status === 'rejected');
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
        expect(refused).toHaveLength(1);
        expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(DomainError);
        expect((refused[0] as PromiseRejectedResult).reason).toMatchObject(refusal);
      }
    });
  });
});
