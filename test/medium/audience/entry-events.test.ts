import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import type { BatchEntryInput } from '../../../services/audience/domain/entry-batch.service';
import { applicationApprovals } from '../../../services/audience/jobs/application-approved.consumer';
import { Deadline } from '../../../services/platform/deadline';
import { EVENT_CONSUMERS } from '../../../services/platform/events/consumers';
import { consumerJob, deliverEvent } from '../../../services/platform/outbox/consumer';
import type { EventJobData } from '../../../services/platform/outbox/event';
import type { OutboxRelay } from '../../../services/platform/outbox/relay';
import type { QueueKit } from '../../../services/platform/queue';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomainWithQueues } from '../../helpers/audience-domain';
import { evmAddress, mixedCase } from '../../helpers/evm-addresses';

const evm = (n: number): BatchEntryInput => ({ identifier: evmAddress(n), identifierType: 'evm_address' });
const user = (n: number) => ({ identifier: evmAddress(n), identifier_type: 'evm_address' });

/**
 * The audience service's events (services/platform/events/contracts.ts): every change of a segment's
 * entries writes one event in the same transaction, naming exactly the users that entered or left;
 * and its consumer of approved affiliate applications adds the user once.
 */
describe('audience events (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase> & { outbox: OutboxRelay<AudienceDatabase>; queues: QueueKit };
  beforeAll(async () => {
    harness = await startAudienceDomainWithQueues();
  });
  afterAll(() => harness.stop());

  async function newSegment() {
    const projectId = randomUUID();
    const segment = await harness.domain.segments.create(projectId, { name: 'Segment' });
    return { projectId, segmentId: segment.id };
  }
  const submit = (at: { projectId: string; segmentId: string }, entries: BatchEntryInput[]) =>
    harness.domain.batches.submit(at.projectId, at.segmentId, entries, undefined, { deadline: Deadline.after(10_000), waitMs: 0 });
  /** The segment's events, oldest first, as type, kind and users. */
  const eventsOf = async (segmentId: string) =>
    (
      await harness.sql.query(
        `SELECT id, type, project_id, payload, created_at FROM audience.outbox WHERE payload->>'segment_id' = $1 ORDER BY seq`,
        [segmentId],
      )
    ).rows as Array<{ id: string; type: string; project_id: string; payload: { kind?: string; users?: unknown[] }; created_at: Date }>;

  describe('producing', () => {
    it('writes one entry_added event per applied batch, naming only the users that entered', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(1), 'evm_address');
      const { batch } = await submit(at, [evm(1), evm(2), { identifier: mixedCase(evmAddress(3)), identifierType: 'evm_address' }, evm(3), evm(2)]);
      harness.clock.advance(5_000);
      await harness.domain.batches.apply(batch.id);

      const events = await eventsOf(at.segmentId);
      expect(events.map((event) => event.type)).toEqual(['audience.entry_added', 'audience.entry_added']);
      expect(events[1]).toMatchObject({
        project_id: at.projectId,
        payload: { segment_id: at.segmentId, kind: 'static', users: expect.arrayContaining([user(2), user(3)]) },
        created_at: harness.clock.now(),
      });
      expect(events[1]!.payload.users).toHaveLength(2);
    });

    it('writes no event for a batch that adds nobody, nor for a batch applied again', async () => {
      const at = await newSegment();
      const first = (await submit(at, [evm(10), evm(11)])).batch;
      await harness.domain.batches.apply(first.id);
      await harness.domain.batches.apply(first.id);
      const second = (await submit(at, [evm(11), evm(10)])).batch;
      await harness.domain.batches.apply(second.id);
      expect((await eventsOf(at.segmentId)).map((event) => event.payload.users)).toEqual([[user(10), user(11)]]);
    });

    it('writes one event for a batch of 10,000, listing all of them', async () => {
      const at = await newSegment();
      const { batch } = await submit(
        at,
        Array.from({ length: 10_000 }, (_, i) => evm(100_000 + i)),
      );
      await harness.domain.batches.apply(batch.id);
      const events = await eventsOf(at.segmentId);
      expect(events).toHaveLength(1);
      expect(new Set(events[0]!.payload.users!.map((u) => (u as { identifier: string }).identifier)).size).toBe(10_000);
    });

    it('writes entry_added for a dashboard add and nothing for a conflicting one', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, mixedCase(evmAddress(20)), 'evm_address');
      await expect(harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(20), 'evm_address')).rejects.toMatchObject({
        code: 'AUDIENCE_ENTRY_EXISTS',
      });
      expect((await eventsOf(at.segmentId)).map((event) => [event.type, event.payload])).toEqual([
        ['audience.entry_added', { segment_id: at.segmentId, kind: 'static', users: [user(20)] }],
      ]);
    });

    it('writes entry_removed naming the removed user, and nothing for a user who was not there', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(30), 'evm_address');
      await harness.domain.entries.remove(at.projectId, at.segmentId, mixedCase(evmAddress(30)), undefined);
      await expect(harness.domain.entries.remove(at.projectId, at.segmentId, evmAddress(30), undefined)).rejects.toMatchObject({
        code: 'AUDIENCE_ENTRY_NOT_FOUND',
      });
      expect((await eventsOf(at.segmentId)).map((event) => [event.type, event.payload.users])).toEqual([
        ['audience.entry_added', [user(30)]],
        ['audience.entry_removed', [user(30)]],
      ]);
    });

    it('writes segment_deleted once when a segment goes, and nothing for a foreign or missing one', async () => {
      const at = await newSegment();
      await expect(harness.domain.segments.delete(randomUUID(), at.segmentId)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      await harness.domain.segments.delete(at.projectId, at.segmentId);
      await expect(harness.domain.segments.delete(at.projectId, at.segmentId)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      expect((await eventsOf(at.segmentId)).map((event) => [event.type, event.project_id, event.payload])).toEqual([
        ['audience.segment_deleted', at.projectId, { segment_id: at.segmentId }],
      ]);
    });

    it('relays entry events to the agency’s membership queue', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(40), 'evm_address');
      const [event] = await eventsOf(at.segmentId);
      await harness.outbox.pass();
      const membership = consumerJob(EVENT_CONSUMERS['agency-audience-memberships']);
      const job = await harness.queues.queue(membership.queue).getJob(`${event!.id}-agency-audience-memberships`);
      expect(job?.data.payload).toMatchObject({ id: event!.id, type: 'audience.entry_added', projectId: at.projectId, payload: event!.payload });
    });
  });

  describe('consuming agency.application.approved', () => {
    const approval = (at: { projectId: string; segmentId: string }, identifier: string, overrides: Partial<EventJobData> = {}): EventJobData => ({
      id: randomUUID(),
      type: 'agency.application.approved',
      projectId: at.projectId,
      payload: {
        project_id: at.projectId,
        application_id: randomUUID(),
        audience_id: at.segmentId,
        user: { identifier, identifier_type: 'evm_address' },
      },
      createdAt: harness.clock.now().toISOString(),
      ...overrides,
    });
    const deliver = (data: EventJobData) => deliverEvent(harness.db, applicationApprovals, data, harness.clock, harness.logs.logger('consumer'));
    const entriesOf = async (segmentId: string) =>
      (
        await harness.sql.query('SELECT identifier, kind, source, added_at FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [
          segmentId,
        ])
      ).rows;
    const countOf = async (at: { projectId: string; segmentId: string }) =>
      (await harness.domain.segments.get(at.projectId, at.segmentId)).entriesCount;
    const outcomeOf = async (eventId: string) =>
      (
        await harness.sql.query(
          `SELECT outcome, note FROM audience.processed_events WHERE consumer = 'audience-application-approvals' AND event_id = $1`,
          [eventId],
        )
      ).rows[0];

    it('adds the approved user as a static entry, once, and tells the agency through entry_added', async () => {
      const at = await newSegment();
      const event = approval(at, mixedCase(evmAddress(50)));
      expect(await deliver(event)).toBe('handled');
      expect(await deliver(event)).toBe('duplicate');
      expect(await entriesOf(at.segmentId)).toEqual([{ identifier: evmAddress(50), kind: 'static', source: 'api', added_at: harness.clock.now() }]);
      expect(await countOf(at)).toBe(1n);
      expect((await eventsOf(at.segmentId)).map((written) => [written.type, written.payload.users])).toEqual([['audience.entry_added', [user(50)]]]);
    });

    it('changes nothing for a user already in the segment', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(60), 'evm_address');
      const event = approval(at, evmAddress(60));
      expect(await deliver(event)).toBe('handled');
      expect(await entriesOf(at.segmentId)).toEqual([expect.objectContaining({ identifier: evmAddress(60), source: 'dashboard' })]);
      expect(await countOf(at)).toBe(1n);
      expect(await eventsOf(at.segmentId)).toHaveLength(1);
    });

    it('adds the user once when the event is delivered 10 times at once', async () => {
      const at = await newSegment();
      const event = approval(at, evmAddress(70));
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => deliver(event)));
      expect(outcomes.sort()).toEqual(['duplicate', ...Array(8).fill('duplicate'), 'handled'].sort());
      expect(await countOf(at)).toBe(1n);
      expect(await eventsOf(at.segmentId)).toHaveLength(1);
    });

    it('records, and does not retry, an approval whose segment was deleted meanwhile or belongs to another project', async () => {
      const gone = await newSegment();
      await harness.domain.segments.delete(gone.projectId, gone.segmentId);
      const late = approval(gone, evmAddress(80));
      expect(await deliver(late)).toBe('ignored');
      expect(await outcomeOf(late.id)).toEqual({ outcome: 'ignored', note: expect.stringContaining(`audience ${gone.segmentId} no longer exists`) });
      expect(await deliver(late)).toBe('duplicate');

      const other = await newSegment();
      const foreignProject = randomUUID();
      const foreign = approval({ projectId: foreignProject, segmentId: other.segmentId }, evmAddress(81));
      expect(await deliver(foreign)).toBe('ignored');
      expect(await entriesOf(other.segmentId)).toEqual([]);
      expect(await harness.sql.query(`SELECT 1 FROM audience.entries WHERE identifier IN ($1, $2)`, [evmAddress(80), evmAddress(81)])).toMatchObject({
        rowCount: 0,
      });
    });

    it('records an approval naming an invalid user as ignored, with the reason', async () => {
      const at = await newSegment();
      const event = approval(at, '0x1234');
      expect(await deliver(event)).toBe('ignored');
      expect(await outcomeOf(event.id)).toEqual({ outcome: 'ignored', note: expect.stringContaining("the user's identifier is invalid") });
      expect(await entriesOf(at.segmentId)).toEqual([]);
    });
  });
});
