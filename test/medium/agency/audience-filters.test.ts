import { randomUUID } from 'node:crypto';
import { audienceMemberships } from '../../../services/agency/jobs/audience-memberships.consumer';
import type { EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import type { AgencyDatabase } from '../../../services/agency/database';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { newAffiliate, newProject } from './program-fixtures';

const T0 = Date.parse('2026-11-21T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1_000).toISOString();

/**
 * The affiliate list's `audience` / `audience_ids` filters read the agency's membership projection,
 * fed by the audience service's entry events (delivered here as the consumer's worker delivers
 * them: once per event, in whatever order they come).
 */
describe('audience filters of the affiliate list (membership projection, domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  const consumer = audienceMemberships as unknown as EventConsumer<AgencyDatabase, EventType>;
  const deliver = (projectId: string, type: EventType, payload: unknown, createdAt: string, id = randomUUID()) =>
    deliverEvent(harness.db, consumer, { id, type, projectId, payload, createdAt }, harness.clock, harness.logs.logger('consumer'));
  const entries = (segmentId: string, users: Array<{ identifier: string }>, kind: 'static' | 'dynamic' = 'static') => ({
    segment_id: segmentId,
    kind,
    users: users.map((user) => ({ identifier: user.identifier, identifier_type: 'evm_address' })),
  });
  const page = { page: 1, pageSize: 100, offset: 0 };
  const idsIn = async (projectId: string, filters: { audienceId?: string; anyAudienceIds?: string[] }) =>
    (await harness.domain.affiliates.list(projectId, filters, page)).records.map((record) => record.id).sort();

  it('lists the members of one segment, and of any of several; both filters together must both hold', async () => {
    const projectId = newProject();
    const [a, b, c] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const [gold, silver, empty] = [randomUUID(), randomUUID(), randomUUID()];
    await deliver(projectId, 'audience.entry_added', entries(gold, [a.user, b.user]), at(1));
    await deliver(projectId, 'audience.entry_added', entries(silver, [c.user, b.user], 'dynamic'), at(2));
    expect(await idsIn(projectId, { audienceId: gold })).toEqual([a.id, b.id].sort());
    expect(await idsIn(projectId, { anyAudienceIds: [silver, empty] })).toEqual([b.id, c.id].sort());
    expect(await idsIn(projectId, { anyAudienceIds: [gold, silver] })).toEqual([a.id, b.id, c.id].sort());
    expect(await idsIn(projectId, { audienceId: gold, anyAudienceIds: [silver] })).toEqual([b.id]);
    expect(await idsIn(projectId, { audienceId: empty })).toEqual([]);
    const counted = await harness.domain.affiliates.list(projectId, { audienceId: gold }, { page: 1, pageSize: 1, offset: 0 });
    expect(counted.total).toBe(2);
    // Another project's affiliates never match, even for the same user in the same segment id.
    expect(await idsIn(newProject(), { audienceId: gold })).toEqual([]);
  });

  it('follows removals, per kind of entry: a user stays a member while either its static or its dynamic entry is there', async () => {
    const projectId = newProject();
    const a = await newAffiliate(harness, projectId);
    const segment = randomUUID();
    await deliver(projectId, 'audience.entry_added', entries(segment, [a.user], 'static'), at(1));
    await deliver(projectId, 'audience.entry_added', entries(segment, [a.user], 'dynamic'), at(2));
    await deliver(projectId, 'audience.entry_removed', entries(segment, [a.user], 'static'), at(3));
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([a.id]);
    await deliver(projectId, 'audience.entry_removed', entries(segment, [a.user], 'dynamic'), at(4));
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([]);
  });

  it('keeps the latest state when events arrive out of order, and changes nothing for a redelivered event', async () => {
    const projectId = newProject();
    const a = await newAffiliate(harness, projectId);
    const segment = randomUUID();
    // Removed at t=5, but that event is applied before the add of t=1.
    await deliver(projectId, 'audience.entry_removed', entries(segment, [a.user]), at(5));
    await deliver(projectId, 'audience.entry_added', entries(segment, [a.user]), at(1));
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([]);
    const id = randomUUID();
    expect(await deliver(projectId, 'audience.entry_added', entries(segment, [a.user]), at(6), id)).toBe('handled');
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([a.id]);
    expect(await deliver(projectId, 'audience.entry_added', entries(segment, [a.user]), at(6), id)).toBe('duplicate');
    const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.audience_memberships WHERE segment_id = $1', [segment]);
    expect(rows[0].n).toBe(1);
  });

  it('forgets a deleted segment, and its older events that arrive after the deletion', async () => {
    const projectId = newProject();
    const [a, b] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const segment = randomUUID();
    await deliver(projectId, 'audience.entry_added', entries(segment, [a.user]), at(1));
    await deliver(projectId, 'audience.segment_deleted', { segment_id: segment }, at(3));
    await deliver(projectId, 'audience.entry_added', entries(segment, [b.user]), at(2));
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([]);
    const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.audience_memberships WHERE segment_id = $1', [segment]);
    expect(rows[0].n).toBe(0);
  });

  it('applies an event naming the same user twice, and 10,000 users at once, keeping its affiliates only', async () => {
    const projectId = newProject();
    const [a, b] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const segment = randomUUID();
    await deliver(projectId, 'audience.entry_added', entries(segment, [a.user, a.user]), at(1));
    const many = Array.from({ length: 10_000 }, (_, n) => ({ identifier: `0x${n.toString(16).padStart(40, '0')}` }));
    many[5_000] = b.user;
    await deliver(projectId, 'audience.entry_added', entries(segment, many), at(2));
    // The other 9,999 users are no affiliates of the project: nothing reads their memberships, so none is stored.
    const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.audience_memberships WHERE segment_id = $1 AND present', [
      segment,
    ]);
    expect(rows[0].n).toBe(2);
    expect(await idsIn(projectId, { audienceId: segment })).toEqual([a.id, b.id].sort());
  });

  it('refuses segment ids that are no UUIDs, and more than 50 of them, naming the filter', async () => {
    const projectId = newProject();
    await expect(harness.domain.affiliates.list(projectId, { audienceId: 'gold' }, page)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'audience' }],
    });
    await expect(harness.domain.affiliates.list(projectId, { anyAudienceIds: [randomUUID(), 'silver'] }, page)).rejects.toMatchObject({
      details: [{ field: 'audience_ids[1]' }],
    });
    await expect(harness.domain.affiliates.list(projectId, { anyAudienceIds: Array.from({ length: 51 }, randomUUID) }, page)).rejects.toMatchObject({
      details: [{ field: 'audience_ids', reason: 'at most 50 segment ids' }],
    });
  });
});
