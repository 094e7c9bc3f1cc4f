import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../../../services/agency/database';
import { audienceMemberships } from '../../../services/agency/jobs/audience-memberships.consumer';
import { segmentTiers } from '../../../services/agency/jobs/segment-tiers.consumer';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import * as publishSegmentTiers from '../../../services/audience/migrations/0008_publish_segment_tiers';
import type { EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { ADMIN, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

const START = Date.parse('2026-11-21T12:00:00.000Z');
const at = (seconds: number) => new Date(START + seconds * 1_000);

/**
 * The active tier from the agency's own projections: the audience service's tier and
 * entry events, applied to segment_tiers and audience_memberships, give each affiliate's current
 * tier inside the attribution statement, with no call to the audience service. Each case checks
 * that what attribution pays and what the affiliate body shows are the same tier.
 */
describe('active tier from the tier projection (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  beforeEach(() => harness.clock.set(at(0)));

  const tierConsumer = segmentTiers as unknown as EventConsumer<AgencyDatabase, EventType>;
  const membershipConsumer = audienceMemberships as unknown as EventConsumer<AgencyDatabase, EventType>;
  /** One event delivered as the agency's worker delivers it: once, whatever order it comes in. */
  const deliver = (
    consumer: EventConsumer<AgencyDatabase, EventType>,
    projectId: string,
    type: EventType,
    payload: unknown,
    createdAt: Date,
    id = randomUUID(),
  ) =>
    deliverEvent(
      harness.db,
      consumer,
      { id, type, projectId, payload, createdAt: createdAt.toISOString() },
      harness.clock,
      harness.logs.logger('consumer'),
    );
  const tierEvent = (projectId: string, segmentId: string, tierRank: number | null, when: Date, name = 'Tier') =>
    deliver(tierConsumer, projectId, 'audience.segment_tier_changed', { segment_id: segmentId, name, tier_rank: tierRank }, when);

  /** A project with three tiers (bronze 1 < silver 2 < gold 3), a plain segment, and an affiliate who referred a user; the tiers projected. */
  async function tieredProject() {
    const projectId = newProject();
    const segment = (name: string, tierRank?: number) =>
      harness.audience.segments.create(projectId, { name: `${name} ${randomBytes(2).toString('hex')}`, tierRank });
    const [bronze, silver, gold, plain] = [await segment('Bronze', 1), await segment('Silver', 2), await segment('Gold', 3), await segment('Plain')];
    const affiliate = await newAffiliate(harness, projectId);
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, affiliate.codes[0]!.code);
    await harness.projectAudience();
    return { projectId, bronze, silver, gold, plain, affiliate, user };
  }
  const join = (projectId: string, segmentId: string, affiliate: AffiliateRecord) =>
    harness.audience.entries.add(projectId, segmentId, affiliate.user.identifier, affiliate.user.identifierType);

  /**
   * The tier a conversion of the referred user is paid at now, once the projections have the
   * audience's events so far; the affiliate body must show the same active tier.
   */
  async function paidTier(project: { projectId: string; affiliate: AffiliateRecord; user: { identifier: string; identifierType: string } }) {
    await harness.projectAudience();
    const attribution = await harness.domain.attribution.resolveOne(project.projectId, { user: project.user, at: harness.clock.now() });
    const body = await harness.domain.details.describeOne(project.affiliate);
    expect(body.activeTier?.id ?? null).toBe(attribution.activeTierId);
    return { paid: attribution.activeTierId, current: body.currentTier };
  }

  it('pays no tier to an affiliate in no tier segment (a plain segment is no tier)', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.plain.id, project.affiliate);
    expect(await paidTier(project)).toEqual({ paid: null, current: null });
  });

  it('pays the highest-ranked tier among the affiliate’s segments, with no protection', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.bronze.id, project.affiliate);
    await join(project.projectId, project.silver.id, project.affiliate);
    expect(await paidTier(project)).toEqual({ paid: project.silver.id, current: { id: project.silver.id, name: project.silver.name, rank: 2 } });
  });

  it('pays a protected tier above the current one while it lasts, the current one after', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.bronze.id, project.affiliate);
    await harness.domain.tierProtection.set(project.projectId, userOf(project.affiliate), { tierId: project.gold.id, protectionDays: 2 }, ADMIN);
    expect(await paidTier(project)).toEqual({ paid: project.gold.id, current: expect.objectContaining({ id: project.bronze.id }) });
    harness.clock.set(at(2 * 86_400));
    expect(await paidTier(project)).toEqual({ paid: project.bronze.id, current: expect.objectContaining({ id: project.bronze.id }) });
  });

  it('pays a current tier above the protected one: protection never lowers the tier', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.gold.id, project.affiliate);
    await harness.domain.tierProtection.set(project.projectId, userOf(project.affiliate), { tierId: project.bronze.id, protectionDays: 7 }, ADMIN);
    expect((await paidTier(project)).paid).toBe(project.gold.id);
  });

  it('follows a changed rank and name: the segment that now ranks highest is paid', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.bronze.id, project.affiliate);
    await join(project.projectId, project.silver.id, project.affiliate);
    expect((await paidTier(project)).paid).toBe(project.silver.id);
    harness.clock.set(at(1));
    await harness.audience.segments.update(project.projectId, project.bronze.id, ['tier_rank', 'name'], { tierRank: 5, name: 'Platinum' });
    expect(await paidTier(project)).toEqual({ paid: project.bronze.id, current: { id: project.bronze.id, name: 'Platinum', rank: 5 } });
  });

  it('stops paying a cleared tier, current or protected', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.bronze.id, project.affiliate);
    await join(project.projectId, project.silver.id, project.affiliate);
    await harness.domain.tierProtection.set(project.projectId, userOf(project.affiliate), { tierId: project.gold.id, protectionDays: 7 }, ADMIN);
    expect((await paidTier(project)).paid).toBe(project.gold.id);
    harness.clock.set(at(1));
    await harness.audience.segments.update(project.projectId, project.gold.id, ['tier_rank'], {});
    expect((await paidTier(project)).paid).toBe(project.silver.id);
    await harness.audience.segments.update(project.projectId, project.silver.id, ['tier_rank'], {});
    expect(await paidTier(project)).toEqual({ paid: project.bronze.id, current: expect.objectContaining({ id: project.bronze.id }) });
  });

  it('stops paying a deleted tier segment, and a late event of it does not bring it back', async () => {
    const project = await tieredProject();
    await join(project.projectId, project.silver.id, project.affiliate);
    await join(project.projectId, project.gold.id, project.affiliate);
    expect((await paidTier(project)).paid).toBe(project.gold.id);
    harness.clock.set(at(10));
    await harness.audience.segments.delete(project.projectId, project.gold.id);
    expect((await paidTier(project)).paid).toBe(project.silver.id);
    // A tier event of the deleted segment delivered late (older, or even of the same moment as the deletion).
    await tierEvent(project.projectId, project.gold.id, 3, at(5));
    await tierEvent(project.projectId, project.gold.id, 3, at(10));
    expect((await paidTier(project)).paid).toBe(project.silver.id);
  });

  it('keeps the latest state whatever order the events arrive in, and applies a redelivered event once', async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, affiliate.codes[0]!.code);
    const [high, low] = [randomUUID(), randomUUID()];
    const members = (segmentId: string) => ({
      segment_id: segmentId,
      kind: 'static',
      users: [{ identifier: affiliate.user.identifier, identifier_type: 'evm_address' }],
    });
    await deliver(membershipConsumer, projectId, 'audience.entry_added', members(high), at(1));
    await deliver(membershipConsumer, projectId, 'audience.entry_added', members(low), at(1));
    // `high` made rank 9 at t=3; its rank 1 of t=2 arrives after, and changes nothing.
    await tierEvent(projectId, high, 9, at(3), 'High');
    await tierEvent(projectId, high, 1, at(2), 'Old name');
    await tierEvent(projectId, low, 4, at(2));
    const paid = async () => (await harness.domain.attribution.resolveOne(projectId, { user, at: at(4) })).activeTierId;
    expect(await paid()).toBe(high);
    expect((await harness.domain.details.describeOne(affiliate)).currentTier).toEqual({ id: high, name: 'High', rank: 9 });
    // Cleared at t=5, the clearing delivered twice; an older rank arriving after it does not make it a tier again.
    const cleared = randomUUID();
    const clear = () =>
      deliver(tierConsumer, projectId, 'audience.segment_tier_changed', { segment_id: high, name: 'High', tier_rank: null }, at(5), cleared);
    expect(await clear()).toBe('handled');
    expect(await clear()).toBe('duplicate');
    await tierEvent(projectId, high, 9, at(4));
    expect(await paid()).toBe(low);
    const { rows } = await harness.sql.query('SELECT tier_rank, changed_at FROM agency.segment_tiers WHERE segment_id = $1', [high]);
    expect(rows).toEqual([{ tier_rank: null, changed_at: at(5) }]);
  });

  it('is told by the audience service in the write’s own transaction: a tier’s creation and every change of its rank or name, nothing for a plain segment', async () => {
    const projectId = newProject();
    const tier = await harness.audience.segments.create(projectId, { name: `Tier ${randomBytes(2).toString('hex')}`, tierRank: 2 });
    const plain = await harness.audience.segments.create(projectId, { name: `Plain ${randomBytes(2).toString('hex')}` });
    await harness.audience.segments.update(projectId, plain.id, ['name'], { name: 'Still plain' });
    await harness.audience.segments.update(projectId, tier.id, ['name'], { name: 'Renamed' });
    await harness.audience.segments.update(projectId, tier.id, ['tier_rank'], { tierRank: 7 });
    await harness.audience.segments.update(projectId, tier.id, ['tier_rank'], {});
    await harness.audience.segments.update(projectId, plain.id, ['tier_rank'], { tierRank: 1 });
    const { rows } = await harness.sql.query(
      "SELECT payload FROM audience.outbox WHERE project_id = $1 AND type = 'audience.segment_tier_changed' ORDER BY seq",
      [projectId],
    );
    expect(rows.map((row) => row.payload)).toEqual([
      { segment_id: tier.id, name: tier.name, tier_rank: 2 },
      { segment_id: tier.id, name: 'Renamed', tier_rank: 2 },
      { segment_id: tier.id, name: 'Renamed', tier_rank: 7 },
      { segment_id: tier.id, name: 'Renamed', tier_rank: null },
      { segment_id: plain.id, name: 'Still plain', tier_rank: 1 },
    ]);
    // A refused write (the rank taken) writes no event.
    await expect(harness.audience.segments.update(projectId, tier.id, ['tier_rank'], { tierRank: 1 })).rejects.toMatchObject({
      code: 'TIER_RANK_TAKEN',
    });
    const after = await harness.sql.query(
      "SELECT count(*)::int AS n FROM audience.outbox WHERE project_id = $1 AND type = 'audience.segment_tier_changed'",
      [projectId],
    );
    expect(after.rows[0].n).toBe(5);
  });

  it('backfills tier segments that have no event (audience migration 0008): one event each, which the agency applies', async () => {
    const projectId = newProject();
    const tier = await harness.audience.segments.create(projectId, { name: `Old tier ${randomBytes(2).toString('hex')}`, tierRank: 4 });
    const plain = await harness.audience.segments.create(projectId, { name: `Old plain ${randomBytes(2).toString('hex')}` });
    // As in a deployment older than the event: the segments exist, their events do not.
    await harness.sql.query("DELETE FROM audience.outbox WHERE project_id = $1 AND type = 'audience.segment_tier_changed'", [projectId]);
    await publishSegmentTiers.up(harness.audienceDb as unknown as Kysely<unknown>);
    const { rows } = await harness.sql.query("SELECT payload FROM audience.outbox WHERE project_id = $1 AND type = 'audience.segment_tier_changed'", [
      projectId,
    ]);
    expect(rows.map((row) => row.payload)).toEqual([{ segment_id: tier.id, name: tier.name, tier_rank: 4 }]);
    await harness.projectAudience();
    const projected = await harness.sql.query('SELECT segment_id, tier_rank FROM agency.segment_tiers WHERE segment_id = ANY($1)', [
      [tier.id, plain.id],
    ]);
    expect(projected.rows).toEqual([{ segment_id: tier.id, tier_rank: 4 }]);
  });
});
