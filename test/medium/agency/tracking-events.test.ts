import { startAgencyDomain } from '../../helpers/agency-domain';
import type { TrackingEventInput } from '../../../services/agency/domain/tracking-event.service';
import { InvalidArgumentError } from '../../../services/rules/errors';
import { mixedCase } from '../../helpers/fixtures';
import { type AgencyHarness, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const RETENTION_DAYS = 60;

const pageview = (trackingId: string, extra: Partial<TrackingEventInput> = {}): TrackingEventInput => ({
  name: 'pageview',
  trackingId,
  user: undefined,
  signatureVerified: false,
  referrer: undefined,
  dedupId: undefined,
  argsJson: JSON.stringify({ page: '/', locationOrigin: 'https://example.com' }),
  metadataJson: JSON.stringify({ tracking_id: trackingId }),
  ...extra,
});

/** RecordTrackingEvents' domain and repository: one batch per request, dedup ids once per project, the monthly partitions. */
describe('tracking events (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain({ trackingEventRetentionDays: RETENTION_DAYS });
    harness.clock.set(START);
  });
  afterAll(() => harness.stop());

  const eventRows = async (projectId: string) =>
    (
      await harness.sql.query(
        `SELECT e.id, e.batch_id, e.received_at, e.name, e.tracking_id, e.identifier_type, e.identifier, e.signature_verified, e.referrer,
                e.dedup_id, e.args, e.metadata, e.tableoid::regclass::text AS partition
         FROM agency.tracking_events e WHERE e.project_id = $1 ORDER BY e.tracking_id, e.name`,
        [projectId],
      )
    ).rows;
  const batchRows = async (projectId: string) =>
    (
      await harness.sql.query('SELECT id, received_at, event_count, processed_at FROM agency.tracking_event_batches WHERE project_id = $1', [
        projectId,
      ])
    ).rows;
  const dedupRows = async (projectId: string) =>
    (await harness.sql.query('SELECT dedup_id, event_id FROM agency.tracking_event_dedup WHERE project_id = $1 ORDER BY dedup_id', [projectId])).rows;
  const partitions = async () =>
    (
      await harness.sql.query(
        `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'agency.tracking_events'::regclass ORDER BY c.relname`,
      )
    ).rows.map((row) => row.relname as string);

  it('stores a request’s events as one batch, each exactly as given, users in their canonical form', async () => {
    const projectId = newProject();
    const wallet = newUser();
    const recorded = await harness.domain.trackingEvents.record(projectId, [
      pageview('t-1', { referrer: 'AliceCode', metadataJson: JSON.stringify({ tracking_id: 't-1', referrer: 'AliceCode', title: 'Home' }) }),
      {
        name: 'connect_wallet',
        trackingId: 't-1',
        user: { identifier: mixedCase(wallet.identifier), identifierType: 'evm_address' },
        signatureVerified: true,
        referrer: undefined,
        dedupId: undefined,
        argsJson: '{"page":"/connect"}',
        metadataJson: '{"tracking_id":"t-1"}',
      },
    ]);
    expect(recorded).toEqual({ batchId: expect.any(String), accepted: 2, duplicates: [] });
    expect(await batchRows(projectId)).toEqual([{ id: recorded.batchId, received_at: new Date(START), event_count: 2, processed_at: null }]);
    expect(await eventRows(projectId)).toEqual([
      {
        id: expect.any(String),
        batch_id: recorded.batchId,
        received_at: new Date(START),
        name: 'connect_wallet',
        tracking_id: 't-1',
        identifier_type: 'evm_address',
        identifier: wallet.identifier,
        signature_verified: true,
        referrer: null,
        dedup_id: null,
        args: { page: '/connect' },
        metadata: { tracking_id: 't-1' },
        partition: expect.any(String),
      },
      {
        id: expect.any(String),
        batch_id: recorded.batchId,
        received_at: new Date(START),
        name: 'pageview',
        tracking_id: 't-1',
        identifier_type: null,
        identifier: null,
        signature_verified: false,
        referrer: 'AliceCode',
        dedup_id: null,
        args: { page: '/', locationOrigin: 'https://example.com' },
        metadata: { tracking_id: 't-1', referrer: 'AliceCode', title: 'Home' },
        partition: expect.any(String),
      },
    ]);
  });

  it('accepts a dedup_id once per project: a later request’s repeat and a repeat within a request are duplicates, not stored', async () => {
    const projectId = newProject();
    const first = await harness.domain.trackingEvents.record(projectId, [pageview('t-a', { dedupId: 'order-1' })]);
    expect(first).toMatchObject({ accepted: 1, duplicates: [] });

    const second = await harness.domain.trackingEvents.record(projectId, [
      pageview('t-b'),
      pageview('t-c', { dedupId: 'order-1' }),
      pageview('t-d', { dedupId: 'order-2' }),
      pageview('t-e', { dedupId: 'order-2' }),
    ]);
    expect(second).toEqual({ batchId: expect.any(String), accepted: 2, duplicates: [1, 3] });
    expect((await eventRows(projectId)).map((row) => [row.tracking_id, row.dedup_id, row.batch_id])).toEqual([
      ['t-a', 'order-1', first.batchId],
      ['t-b', null, second.batchId],
      ['t-d', 'order-2', second.batchId],
    ]);
    const events = await eventRows(projectId);
    expect(await dedupRows(projectId)).toEqual([
      { dedup_id: 'order-1', event_id: events[0].id },
      { dedup_id: 'order-2', event_id: events[2].id },
    ]);

    // Every event a duplicate: no batch at all.
    const third = await harness.domain.trackingEvents.record(projectId, [pageview('t-f', { dedupId: 'order-2' })]);
    expect(third).toEqual({ batchId: null, accepted: 0, duplicates: [0] });
    expect((await batchRows(projectId)).map((row) => row.event_count).sort()).toEqual([1, 2]);

    // Another project has dedup ids of its own.
    const otherProject = newProject();
    expect(await harness.domain.trackingEvents.record(otherProject, [pageview('t-a', { dedupId: 'order-1' })])).toMatchObject({ accepted: 1 });
  });

  it('takes concurrent requests sharing dedup ids in any order without failing, each dedup id stored once', async () => {
    const projectId = newProject();
    const ids = Array.from({ length: 1_000 }, (_, i) => `shared-${i}`);
    const requests = Array.from({ length: 8 }, (_, r) => {
      const order = r % 2 === 0 ? ids : [...ids].reverse();
      return harness.domain.trackingEvents.record(
        projectId,
        order.map((dedupId) => pageview(`t-${r}`, { dedupId })),
      );
    });
    const answers = await Promise.all(requests);
    expect(answers.reduce((sum, answer) => sum + answer.accepted, 0)).toBe(ids.length);
    expect(answers.reduce((sum, answer) => sum + answer.duplicates.length, 0)).toBe(ids.length * 7);
    expect((await dedupRows(projectId)).map((row) => row.dedup_id).sort()).toEqual([...ids].sort());
    expect(await eventRows(projectId)).toHaveLength(ids.length);
  });

  it('refuses a request with any invalid event, naming each field, and stores nothing', async () => {
    const projectId = newProject();
    const refusal = harness.domain.trackingEvents.record(projectId, [
      pageview('t-ok'),
      pageview('', { name: 'x'.repeat(101) }),
      pageview('t-2', { user: { identifier: '0x123', identifierType: 'evm_address' } }),
      pageview('t-3', { argsJson: '[1,2]', metadataJson: JSON.stringify({ big: 'y'.repeat(9_000) }) }),
      pageview('t-4', { signatureVerified: true }),
      pageview('t-5', { argsJson: '{"note":"a\\u0000b"}', metadataJson: '{"tracking_id":"t-5","text":"a\\\\u0000b"}' }),
    ]);
    await expect(refusal).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(refusal).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'events[1].name', reason: 'must be 1 to 100 characters' },
        { field: 'events[1].tracking_id', reason: 'must be 1 to 128 characters' },
        { field: 'events[2].user.identifier', reason: expect.stringContaining('is not a valid evm_address') },
        { field: 'events[3].args', reason: 'must be a JSON object' },
        { field: 'events[3].metadata', reason: 'must be at most 8192 bytes of JSON' },
        { field: 'events[4].signature_verified', reason: 'a verified event names its user' },
        // A NUL character (jsonb holds none); an escaped backslash followed by "u0000" is mere text.
        { field: 'events[5].args', reason: 'must not contain the NUL character' },
      ],
    });
    await expect(harness.domain.trackingEvents.record(projectId, [])).rejects.toMatchObject({ details: [{ field: 'events' }] });
    expect(await eventRows(projectId)).toEqual([]);
    expect(await batchRows(projectId)).toEqual([]);
  });

  it('makes this and next month’s partitions, moves what the default partition held into its month, and drops months past the retention', async () => {
    const projectId = newProject();
    // October's events, received before any partition existed: in the default partition.
    harness.clock.set('2026-10-15T08:00:00.000Z');
    const october = await harness.domain.trackingEvents.record(projectId, [pageview('t-oct', { dedupId: 'oct' })]);
    harness.clock.set(START);
    await harness.domain.trackingEvents.record(projectId, [pageview('t-nov')]);
    expect((await eventRows(projectId)).map((row) => row.partition)).toEqual(['agency.tracking_events_default', 'agency.tracking_events_default']);

    const first = await harness.domain.trackingEvents.maintainPartitions();
    expect(first.dropped).toEqual([]);
    expect(first.created.map((made) => made.name)).toEqual(['tracking_events_2026_10', 'tracking_events_2026_11', 'tracking_events_2026_12']);
    expect(await partitions()).toEqual(['tracking_events_2026_10', 'tracking_events_2026_11', 'tracking_events_2026_12', 'tracking_events_default']);
    expect((await eventRows(projectId)).map((row) => [row.tracking_id, row.partition])).toEqual([
      ['t-nov', 'agency.tracking_events_2026_11'],
      ['t-oct', 'agency.tracking_events_2026_10'],
    ]);
    const { rows: inDefault } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.tracking_events_default');
    expect(inDefault[0].n).toBe(0);
    // A made partition has the table's key and indexes.
    const { rows: indexes } = await harness.sql.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'agency' AND tablename = 'tracking_events_2026_11' ORDER BY indexname`,
    );
    expect(indexes.map((row) => row.indexdef.replace(/^CREATE (UNIQUE )?INDEX \S+ /, ''))).toEqual([
      'ON agency.tracking_events_2026_11 USING btree (received_at, id)',
      'ON agency.tracking_events_2026_11 USING btree (project_id, identifier_type, identifier, name, received_at) WHERE (identifier IS NOT NULL)',
    ]);
    // Again: nothing to do.
    expect(await harness.domain.trackingEvents.maintainPartitions()).toEqual({ created: [], dropped: [] });
    // New events go straight to their month.
    await harness.domain.trackingEvents.record(projectId, [pageview('t-nov-2')]);
    expect((await eventRows(projectId)).find((row) => row.tracking_id === 't-nov-2')?.partition).toBe('agency.tracking_events_2026_11');

    // The October batch processed, the November one not.
    await harness.sql.query('UPDATE agency.tracking_event_batches SET processed_at = $2 WHERE id = $1', [october.batchId, '2026-10-15T08:01:00Z']);
    // 60 days after 2027-01-05 is 2026-11-06: October has passed the retention, November not (yet).
    harness.clock.set('2027-01-05T00:00:00.000Z');
    const later = await harness.domain.trackingEvents.maintainPartitions();
    expect(later).toEqual({
      created: [
        { name: 'tracking_events_2027_01', moved: 0 },
        { name: 'tracking_events_2027_02', moved: 0 },
      ],
      dropped: ['tracking_events_2026_10'],
    });
    expect(await partitions()).toEqual([
      'tracking_events_2026_11',
      'tracking_events_2026_12',
      'tracking_events_2027_01',
      'tracking_events_2027_02',
      'tracking_events_default',
    ]);
    expect((await eventRows(projectId)).map((row) => row.tracking_id)).toEqual(['t-nov', 't-nov-2']);
    expect(await dedupRows(projectId)).toEqual([]);
    expect((await batchRows(projectId)).map((row) => row.received_at)).toEqual([new Date(START), new Date(START)]);
  });
});
