import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { userEventCounts } from '../../../services/audience/jobs/user-event-counts.consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import type { EventJobData } from '../../../services/platform/outbox/event';
import { deliverTo, type DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { conditionInputs } from '../../helpers/condition-inputs';
import { evmAddress } from '../../helpers/evm-addresses';

type Counted = EventPayload<'agency.user_events.counted'>;
const wire = (n: number) => ({ identifier: evmAddress(n), identifier_type: 'evm_address' as const });

/**
 * `event_count(name, days)` conditions: the projection of agency.user_events.counted into
 * user_event_days (consumer audience-user-event-counts, once per event id), and full and incremental
 * matching over it, window edges moved by the test clock.
 */
describe('event_count conditions (consumer, domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const consumer = userEventCounts as unknown as EventConsumer<AudienceDatabase, EventType>;
  const counted = (projectId: string, counts: Array<[number, string, string, number]>, id: string = randomUUID()): EventJobData => ({
    id,
    type: 'agency.user_events.counted',
    projectId,
    payload: {
      project_id: projectId,
      counts: counts.map(([user, name, day, count]) => ({ user: wire(user), name, day, count })),
    } satisfies Counted,
    createdAt: harness.clock.now().toISOString(),
  });
  const deliver = (data: EventJobData) => deliverTo(harness, consumer, data);
  const days = async (projectId: string) =>
    (
      await harness.sql.query(
        `SELECT identifier, name, to_char(day, 'YYYY-MM-DD') AS day, count::int AS count FROM audience.user_event_days
         WHERE project_id = $1 ORDER BY identifier, name, day`,
        [projectId],
      )
    ).rows;
  const evaluations = () => harness.domain.evaluations;
  async function dynamic(projectId: string, condition: unknown) {
    const segment = await harness.domain.segments.create(projectId, { name: `Events ${randomUUID()}`, conditionJson: JSON.stringify(condition) });
    const { requested } = await evaluations().get(projectId, segment.id);
    await evaluations().run(segment.id, requested);
    return segment;
  }
  async function evaluateAgain(projectId: string, segmentId: string) {
    const { requested } = await evaluations().start(projectId, segmentId);
    await evaluations().run(segmentId, requested);
  }
  const idsOf = async (segmentId: string) =>
    (await harness.sql.query('SELECT identifier FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [segmentId])).rows.map(
      (row: { identifier: string }) => row.identifier,
    );

  it('adds counts per user, name and UTC day, once per event id, whatever the order', async () => {
    const projectId = randomUUID();
    const first = counted(projectId, [
      [1, 'swap', '2026-11-20', 2],
      [1, 'swap', '2026-11-20', 1],
      [2, 'swap', '2026-11-21', 5],
    ]);
    await deliver(first);
    await deliver(first);
    await deliver(
      counted(projectId, [
        [1, 'swap', '2026-11-20', 4],
        [1, 'pageview', '2026-11-20', 1],
      ]),
    );
    expect(await days(projectId)).toEqual([
      { identifier: evmAddress(1), name: 'pageview', day: '2026-11-20', count: 1 },
      { identifier: evmAddress(1), name: 'swap', day: '2026-11-20', count: 7 },
      { identifier: evmAddress(2), name: 'swap', day: '2026-11-21', count: 5 },
    ]);
    const { rows } = await harness.sql.query(
      "SELECT count(*)::int AS n FROM audience.processed_events WHERE consumer = 'audience-user-event-counts' AND event_id = $1",
      [first.id],
    );
    expect(rows[0].n).toBe(1);
  });

  it('ignores counts that name another project than their event, and writes nothing', async () => {
    const projectId = randomUUID();
    const event = counted(projectId, [[1, 'swap', '2026-11-20', 2]]);
    await deliver({ ...event, projectId: randomUUID() });
    expect(await days(projectId)).toEqual([]);
  });

  it('matches event_count over a window of N UTC days ending today: the edges move with the clock', async () => {
    harness.clock.set('2026-11-21T10:00:00.000Z');
    const projectId = randomUUID();
    await deliver(
      counted(projectId, [
        [1, 'swap', '2026-11-15', 3], // the window's first day (7 days: 11-15 to 11-21)
        [2, 'swap', '2026-11-14', 3], // the day before it
        [3, 'swap', '2026-11-21', 2], // today, but too few
        [3, 'pageview', '2026-11-21', 9], // another name
        [4, 'swap', '2026-11-21', 1],
        [4, 'swap', '2026-11-18', 2],
      ]),
    );
    await conditionInputs(harness.db, projectId).metrics({ identifier: evmAddress(5) }, { volume_usd: '10' });
    const weekly = await dynamic(projectId, { metric: 'event_count', event_name: 'swap', window_days: 7, op: 'gte', value: '3' });
    expect(await idsOf(weekly.id)).toEqual([evmAddress(1), evmAddress(4)]);
    const ever = await dynamic(projectId, { metric: 'event_count', event_name: 'swap', op: 'gte', value: 3 });
    expect(await idsOf(ever.id)).toEqual([evmAddress(1), evmAddress(2), evmAddress(4)]);
    // Users known only by their events are users of such conditions; a user without a count has 0.
    const none = await dynamic(projectId, { metric: 'event_count', event_name: 'swap', window_days: 1, op: 'eq', value: 0 });
    expect(await idsOf(none.id)).toEqual([evmAddress(1), evmAddress(2), evmAddress(5)]);

    // A day later the window starts on 11-16: user 1's swaps fall out at the next full evaluation.
    harness.clock.set('2026-11-22T00:00:00.000Z');
    await evaluateAgain(projectId, weekly.id);
    expect(await idsOf(weekly.id)).toEqual([evmAddress(4)]);
  });

  it('re-matches a user whose count changed, as a conversion does (incremental matching)', async () => {
    harness.clock.set('2026-11-21T10:00:00.000Z');
    const projectId = randomUUID();
    const segment = await dynamic(projectId, { metric: 'event_count', event_name: 'swap', window_days: 30, op: 'gte', value: 2 });
    await deliver(counted(projectId, [[7, 'swap', '2026-11-21', 1]]));
    expect(await evaluations().matchPending(projectId, 10_000)).toEqual({ users: 1, changed: 0 });
    expect(await idsOf(segment.id)).toEqual([]);
    await deliver(counted(projectId, [[7, 'swap', '2026-11-20', 1]]));
    expect(await evaluations().matchPending(projectId, 10_000)).toEqual({ users: 1, changed: 1 });
    expect(await idsOf(segment.id)).toEqual([evmAddress(7)]);
  });
});
