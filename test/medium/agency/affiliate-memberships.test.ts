import { randomBytes } from 'node:crypto';
import { affiliateMemberships } from '../../../services/audience/jobs/affiliate-memberships.consumer';
import type { AudienceDatabase } from '../../../services/audience/database';
import type { EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { newAffiliate, newProject, newUser } from './program-fixtures';

/**
 * The agency projects the memberships of its affiliates only (issue 27 §3): an entry event's other
 * users are set aside, and an affiliate's earlier entries come back when the audience service
 * answers agency.affiliate.created with audience.memberships.published. Whatever the order of the
 * entry and the affiliate, the projection ends with the affiliate's memberships, each once.
 */
describe('membership projection of affiliates only (domain, both services on one database)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  const consumer = affiliateMemberships as unknown as EventConsumer<AudienceDatabase, EventType>;
  type AgencyEvent = { id: string; type: string; project_id: string; payload: unknown; created_at: Date };
  const affiliateCreatedEvents = async (projectId: string) =>
    (
      await harness.sql.query<AgencyEvent>(
        `SELECT id, type, project_id, payload, created_at FROM agency.outbox WHERE type = 'agency.affiliate.created' AND project_id = $1 ORDER BY seq`,
        [projectId],
      )
    ).rows;
  /** The audience service's consumer of the agency's affiliate.created events, as its worker delivers them (once per event). */
  const deliverToAudience = (row: AgencyEvent) =>
    deliverEvent(
      harness.audienceDb,
      consumer,
      { id: row.id, type: row.type, projectId: row.project_id, payload: row.payload, createdAt: row.created_at.toISOString() },
      harness.clock,
      harness.logs.logger('audience-consumer'),
    );
  const relayAffiliates = async (projectId: string) => {
    for (const row of await affiliateCreatedEvents(projectId)) await deliverToAudience(row);
  };
  const segment = (projectId: string) => harness.audience.segments.create(projectId, { name: `Static ${randomBytes(3).toString('hex')}` });
  const join = (projectId: string, segmentId: string, user: { identifier: string; identifierType: string }) =>
    harness.audience.entries.add(projectId, segmentId, user.identifier, user.identifierType);
  const rowsOf = async (projectId: string) =>
    (
      await harness.sql.query<{ segment_id: string; identifier: string; present: boolean }>(
        'SELECT segment_id, identifier, present FROM agency.audience_memberships WHERE project_id = $1 ORDER BY segment_id, identifier',
        [projectId],
      )
    ).rows;
  const membersOf = async (projectId: string, segmentId: string) =>
    (await harness.domain.affiliates.list(projectId, { audienceId: segmentId }, { page: 1, pageSize: 100, offset: 0 })).records.map(
      (record) => record.id,
    );

  it("keeps an entry event's affiliates only: other users of the batch leave no row", async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    const gold = await segment(projectId);
    const others = [newUser(), newUser(), newUser()];
    for (const user of [...others, affiliate.user]) await join(projectId, gold.id, user);
    await harness.projectAudience();
    expect(await rowsOf(projectId)).toEqual([{ segment_id: gold.id, identifier: affiliate.user.identifier, present: true }]);
    expect(await membersOf(projectId, gold.id)).toEqual([affiliate.id]);
    // Another project's affiliate with the same wallet does not make the user an affiliate here.
    const elsewhere = newProject();
    await harness.domain.affiliates.create(elsewhere, others[0]!, { name: 'Elsewhere', code: `c${randomBytes(5).toString('hex')}` });
    await join(projectId, (await segment(projectId)).id, others[0]!);
    await harness.projectAudience();
    expect((await rowsOf(projectId)).map((row) => row.identifier)).toEqual([affiliate.user.identifier]);
  });

  it('entry before affiliate: the entry set aside comes back when the affiliate is created, tier and filter included', async () => {
    const projectId = newProject();
    const user = newUser();
    const [gold, tier] = [
      await segment(projectId),
      await harness.audience.segments.create(projectId, { name: `Tier ${randomBytes(3).toString('hex')}`, tierRank: 1 }),
    ];
    await join(projectId, gold.id, user);
    await join(projectId, tier.id, user);
    await harness.projectAudience();
    expect(await rowsOf(projectId)).toEqual([]);

    const affiliate = await harness.domain.affiliates.create(projectId, user, { name: 'Late', code: `c${randomBytes(5).toString('hex')}` });
    await relayAffiliates(projectId);
    await harness.projectAudience();
    expect(await membersOf(projectId, gold.id)).toEqual([affiliate.id]);
    expect(await membersOf(projectId, tier.id)).toEqual([affiliate.id]);
    expect((await harness.domain.details.describeOne(affiliate)).currentTier?.id).toBe(tier.id);
  });

  it('affiliate before entry: nothing to publish at creation, and the later entry is kept by its own event', async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    await relayAffiliates(projectId);
    const { rows } = await harness.sql.query(`SELECT 1 FROM audience.outbox WHERE type = 'audience.memberships.published' AND project_id = $1`, [
      projectId,
    ]);
    expect(rows).toHaveLength(0);
    const gold = await segment(projectId);
    await join(projectId, gold.id, affiliate.user);
    await harness.projectAudience();
    expect(await membersOf(projectId, gold.id)).toEqual([affiliate.id]);
  });

  it('both at once: the entry event finds no affiliate yet, the published one lands first or last; a removal after both wins', async () => {
    const projectId = newProject();
    const user = newUser();
    const [early, late] = [await segment(projectId), await segment(projectId)];
    await join(projectId, early.id, user);
    // The agency applies the entry before the affiliate's transaction commits: set aside.
    await harness.projectAudience();
    const affiliate = await harness.domain.affiliates.create(projectId, user, { name: 'Both', code: `c${randomBytes(5).toString('hex')}` });
    // Between the affiliate's commit and the audience's answer, another entry: its event and the published state both name it.
    harness.clock.advance(1_000);
    await join(projectId, late.id, user);
    harness.clock.advance(1_000);
    await relayAffiliates(projectId);
    await harness.projectAudience();
    expect(await rowsOf(projectId)).toEqual(
      [early.id, late.id].sort().map((segmentId) => ({ segment_id: segmentId, identifier: affiliate.user.identifier, present: true })),
    );
    // A removal after the publication leaves the list; its event is newer than the published state.
    harness.clock.advance(1_000);
    await harness.audience.entries.remove(projectId, late.id, user.identifier, user.identifierType);
    await harness.projectAudience();
    expect(await membersOf(projectId, late.id)).toEqual([]);
    expect(await membersOf(projectId, early.id)).toEqual([affiliate.id]);
  });

  it('a redelivered affiliate.created publishes nothing twice, and a redelivered publication stores nothing twice', async () => {
    const projectId = newProject();
    const user = newUser();
    const gold = await segment(projectId);
    await join(projectId, gold.id, user);
    await harness.domain.affiliates.create(projectId, user, { name: 'Retried', code: `c${randomBytes(5).toString('hex')}` });
    const [created] = await affiliateCreatedEvents(projectId);
    expect(await deliverToAudience(created!)).toBe('handled');
    expect(await deliverToAudience(created!)).toBe('duplicate');
    const published = await harness.sql.query(`SELECT id FROM audience.outbox WHERE type = 'audience.memberships.published' AND project_id = $1`, [
      projectId,
    ]);
    expect(published.rows).toHaveLength(1);
    await harness.projectAudience();
    await harness.projectAudience();
    expect(await rowsOf(projectId)).toEqual([{ segment_id: gold.id, identifier: user.identifier, present: true }]);
    const { rows } = await harness.sql.query(
      `SELECT count(*)::int AS n FROM agency.processed_events WHERE consumer = 'agency-audience-memberships' AND event_id = $1`,
      [published.rows[0].id],
    );
    expect(rows[0].n).toBe(1);
  });
});
