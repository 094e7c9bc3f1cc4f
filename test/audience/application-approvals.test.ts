import { randomUUID } from 'node:crypto';
import { appendOutboxEvents } from '../../services/platform/outbox/append';
import { createSegment, evmAddress, mixedCase, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { type OutboxProbe, startOutboxProbe } from '../helpers/outbox';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

/**
 * agency.application.approved, end to end: an event committed to a producer's outbox (a probe
 * standing in for the agency service, in the stack's database and Redis) is relayed to the audience
 * service's queue, and the user appears in the segment through the API, once.
 */
describe('approved applications reach the audience (agency.application.approved)', () => {
  let stack: TestStack;
  let project: TestProject;
  let producer: OutboxProbe;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    producer = await startOutboxProbe({ databaseUrl: stack.databaseUrl, redisUrl: stack.redisUrl, queuePrefix: stack.queuePrefix });
  });
  afterAll(async () => {
    await producer?.stop();
    await stack.stop();
  });

  const approve = (segmentId: string, identifier: string) =>
    producer.db.transaction().execute((trx) =>
      appendOutboxEvents(trx, producer.clock.now(), [
        {
          type: 'agency.application.approved',
          projectId: project.id,
          payload: {
            project_id: project.id,
            application_id: randomUUID(),
            audience_id: segmentId,
            user: { identifier, identifier_type: 'evm_address' },
          },
        },
      ]),
    );
  const entries = async (segmentId: string) =>
    (await stack.api.get(`/v1/audience-segments/${segmentId}/entries`, { key: project.keys.service })).body.results as Array<{ identifier: string }>;
  const outcomes = async (ids: string[]) =>
    (await stack.db.query(`SELECT event_id, outcome FROM audience.processed_events WHERE event_id = ANY($1)`, [ids])).rows;

  it('adds the approved user to the segment once, however often the event is relayed', async () => {
    const segment = await createSegment(stack, project);
    const [eventId] = await approve(segment.id, mixedCase(evmAddress(1)));
    const relay = producer.relay();
    await relay.pass();
    await producer.sql.query(`INSERT INTO ${producer.schema}.outbox_pending (seq) SELECT seq FROM ${producer.schema}.outbox WHERE id = $1`, [
      eventId,
    ]);
    await relay.pass();
    await pollUntil(async () => (await outcomes([eventId!])).length === 1, {
      timeoutMs: 15_000,
      what: 'the audience service to consume the approval',
    });
    expect(await entries(segment.id)).toEqual([expect.objectContaining({ identifier: evmAddress(1), kind: 'static', source: 'api' })]);
    const fetched = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
    expect(fetched.body.entries_count).toBe(1);
  });

  it('finishes, adding nothing, when the segment was deleted before the event arrived', async () => {
    const segment = await createSegment(stack, project);
    expect((await stack.api.delete(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin })).status).toBe(204);
    const [eventId] = await approve(segment.id, evmAddress(2));
    await producer.relay().pass();
    await pollUntil(async () => (await outcomes([eventId!]))[0]?.outcome === 'ignored', {
      timeoutMs: 15_000,
      what: 'the approval to be recorded as ignored',
    });
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM audience.entries WHERE project_id = $1 AND identifier = $2', [project.id, evmAddress(2)]))
        .rows[0].n,
    ).toBe(0);
  });
});
