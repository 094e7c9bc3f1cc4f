import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { Deadline } from '../../../services/platform/deadline';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress, mixedCase } from '../../helpers/evm-addresses';

const invalidRank = {
  code: 'VALIDATION_FAILED',
  kind: 'invalid_argument',
  details: [{ field: 'tier_rank', reason: 'must be a whole number from 1 to 10000' }],
};
const rankTaken = { code: 'TIER_RANK_TAKEN', kind: 'already_exists', details: [{ field: 'tier_rank', reason: expect.any(String) }] };

/**
 * Tiers (the audience's part): a segment's tier_rank, unique per project, and each
 * user's current tier, the highest-ranked tier segment the user is in.
 */
describe('tiers (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const segments = () => harness.domain.segments;
  const tierOf = async (projectId: string, identifier: string, identifierType = 'evm_address') =>
    (await harness.domain.userAudiences.tiers([{ projectId, identifier, identifierType }]))[0];
  const rankIn = async (segmentId: string) =>
    (await harness.sql.query('SELECT tier_rank FROM audience.segments WHERE id = $1', [segmentId])).rows[0].tier_rank;

  describe('tier_rank of a segment', () => {
    it('is set on create, shown on the segment, and absent by default', async () => {
      const projectId = randomUUID();
      expect(await segments().create(projectId, { name: 'Gold', tierRank: 3 })).toMatchObject({ name: 'Gold', tierRank: 3 });
      expect(await segments().create(projectId, { name: 'Plain' })).toMatchObject({ tierRank: null });
    });

    it.each([
      ['zero', 0],
      ['a negative rank', -1],
      ['a fraction', 1.5],
      ['a rank over 10,000', 10_001],
    ])('refuses %s on create and on update, naming tier_rank, and changes nothing', async (_case, rank) => {
      const projectId = randomUUID();
      await expect(segments().create(projectId, { name: 'Tier', tierRank: rank })).rejects.toMatchObject(invalidRank);
      const segment = await segments().create(projectId, { name: 'Tier', tierRank: 2 });
      await expect(segments().update(projectId, segment.id, ['tier_rank'], { tierRank: rank })).rejects.toMatchObject(invalidRank);
      expect(await rankIn(segment.id)).toBe(2);
    });

    it('refuses a rank another segment of the project has, on create and on update, and allows it in another project', async () => {
      const projectId = randomUUID();
      const gold = await segments().create(projectId, { name: 'Gold', tierRank: 3 });
      await expect(segments().create(projectId, { name: 'Gold 2', tierRank: 3 })).rejects.toMatchObject(rankTaken);
      const silver = await segments().create(projectId, { name: 'Silver', tierRank: 2 });
      await expect(segments().update(projectId, silver.id, ['tier_rank'], { tierRank: 3 })).rejects.toMatchObject(rankTaken);
      expect(await rankIn(silver.id)).toBe(2);
      expect(await segments().create(randomUUID(), { name: 'Gold', tierRank: 3 })).toMatchObject({ tierRank: 3 });
      // A segment keeps its own rank through an update of it or of other fields.
      expect(await segments().update(projectId, gold.id, ['tier_rank', 'name'], { tierRank: 3, name: 'Gold+' })).toMatchObject({
        tierRank: 3,
        name: 'Gold+',
      });
    });

    it('changes the rank with the update mask, clears it when named and unset, and keeps it when not named', async () => {
      const projectId = randomUUID();
      const segment = await segments().create(projectId, { name: 'Tier', tierRank: 1 });
      expect(await segments().update(projectId, segment.id, ['tier_rank'], { tierRank: 5 })).toMatchObject({ tierRank: 5 });
      expect(await segments().update(projectId, segment.id, ['description'], { description: 'd', tierRank: 7 })).toMatchObject({
        tierRank: 5,
        description: 'd',
      });
      expect(await segments().update(projectId, segment.id, ['tier_rank'], {})).toMatchObject({ tierRank: null });
      // Its old rank is free again.
      expect(await segments().create(projectId, { name: 'Other', tierRank: 5 })).toMatchObject({ tierRank: 5 });
    });

    it('gives a rank to exactly one of 10 segments claiming it at once', async () => {
      const projectId = randomUUID();
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) => segments().create(projectId, { name: `Tier ${i}` })));
      const outcomes = await Promise.allSettled(created.map((segment) => segments().update(projectId, segment.id, ['tier_rank'], { tierRank: 4 })));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject(rankTaken);
      const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM audience.segments WHERE project_id = $1 AND tier_rank = 4', [
        projectId,
      ]);
      expect(rows[0].n).toBe(1);
    });
  });

  describe('a user’s current tier', () => {
    async function ladder() {
      const projectId = randomUUID();
      const bronze = await segments().create(projectId, { name: 'Bronze', tierRank: 1 });
      const gold = await segments().create(projectId, { name: 'Gold', tierRank: 3 });
      const silver = await segments().create(projectId, { name: 'Silver', tierRank: 2 });
      const plain = await segments().create(projectId, { name: 'Newsletter' });
      return { projectId, bronze, silver, gold, plain };
    }
    const add = (projectId: string, segmentId: string, n: number) => harness.domain.entries.add(projectId, segmentId, evmAddress(n), 'evm_address');

    it('is the highest-ranked tier segment the user is in; segments without a rank do not count', async () => {
      const { projectId, bronze, gold, plain } = await ladder();
      await add(projectId, bronze.id, 1);
      await add(projectId, gold.id, 1);
      await add(projectId, plain.id, 1);
      expect(await tierOf(projectId, mixedCase(evmAddress(1)))).toEqual({ tier: { segmentId: gold.id, name: 'Gold', tierRank: 3 } });
      await add(projectId, plain.id, 2);
      expect(await tierOf(projectId, evmAddress(2))).toEqual({ tier: null });
      expect(await tierOf(projectId, evmAddress(3))).toEqual({ tier: null });
    });

    it('follows the user’s entries, the segments’ ranks and their deletion', async () => {
      const { projectId, bronze, silver, gold } = await ladder();
      for (const segment of [bronze, silver, gold]) await add(projectId, segment.id, 10);
      await harness.domain.entries.remove(projectId, gold.id, evmAddress(10), 'evm_address');
      expect(await tierOf(projectId, evmAddress(10))).toMatchObject({ tier: { segmentId: silver.id, tierRank: 2 } });
      await segments().update(projectId, bronze.id, ['tier_rank'], { tierRank: 9 });
      expect(await tierOf(projectId, evmAddress(10))).toMatchObject({ tier: { segmentId: bronze.id, tierRank: 9 } });
      await segments().delete(projectId, bronze.id);
      expect(await tierOf(projectId, evmAddress(10))).toMatchObject({ tier: { segmentId: silver.id } });
      await segments().update(projectId, silver.id, ['tier_rank'], { tierRank: null });
      expect(await tierOf(projectId, evmAddress(10))).toEqual({ tier: null });
    });

    it('counts entries added by a batch as any other', async () => {
      const { projectId, silver } = await ladder();
      const { batch } = await harness.domain.batches.submit(
        projectId,
        silver.id,
        [{ identifier: evmAddress(20), identifierType: 'evm_address' }],
        undefined,
        {
          deadline: Deadline.after(10_000),
          waitMs: 0,
        },
      );
      await harness.domain.batches.apply(batch.id);
      expect(await tierOf(projectId, evmAddress(20))).toMatchObject({ tier: { segmentId: silver.id, tierRank: 2 } });
    });

    it('answers many users, each in its own project, in the order asked; a bad lookup fails alone', async () => {
      const first = await ladder();
      const second = await ladder();
      await add(first.projectId, first.silver.id, 30);
      await add(second.projectId, second.gold.id, 30);
      await add(second.projectId, second.bronze.id, 31);
      const answers = await harness.domain.userAudiences.tiers([
        { projectId: first.projectId, identifier: evmAddress(30), identifierType: 'evm_address' },
        { projectId: second.projectId, identifier: evmAddress(30), identifierType: 'evm_address' },
        { projectId: first.projectId, identifier: '0x12', identifierType: 'evm_address' },
        { projectId: second.projectId, identifier: evmAddress(31), identifierType: 'evm_address' },
        { projectId: first.projectId, identifier: evmAddress(31), identifierType: 'evm_address' },
      ]);
      expect(answers).toEqual([
        { tier: { segmentId: first.silver.id, name: 'Silver', tierRank: 2 } },
        { tier: { segmentId: second.gold.id, name: 'Gold', tierRank: 3 } },
        { error: expect.objectContaining({ code: 'VALIDATION_FAILED' }) },
        { tier: { segmentId: second.bronze.id, name: 'Bronze', tierRank: 1 } },
        { tier: null },
      ]);
    });

    it('refuses more than 1,000 lookups in one call', async () => {
      const lookups = Array.from({ length: 1_001 }, (_, i) => ({
        projectId: randomUUID(),
        identifier: evmAddress(i),
        identifierType: 'evm_address',
      }));
      await expect(harness.domain.userAudiences.tiers(lookups)).rejects.toMatchObject({ code: 'TOO_MANY_LOOKUPS' });
    });
  });
});
