import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, createSegment, type TestProject } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';

const USERS = 20_000;

/**
 * A full evaluation of a dynamic audience through a process death in the middle of
 * its statement and through Redis lost while one is requested: afterwards the audience holds
 * exactly the users that match, each once, its count agrees, and each entered user is announced
 * in exactly one audience.entry_added event. A dynamic audience's create or condition change and its
 * evaluation request commit together: a process killed between them keeps neither.
 */
describe('dynamic audience evaluations through process deaths and Redis loss', () => {
  const stack = useFaultStack({ services: ['audience'], ownRedis: true });
  let audience: ServiceProcess;
  let project: TestProject;
  let api: Api;
  beforeAll(async () => {
    audience = stack.service('audience');
    api = stack.gateway.api;
    project = await createProject(stack.gateway);
  });

  const count = async (query: string, params: unknown[]) => Number((await stack.db.query(query, params)).rows[0].n);
  const evaluationOf = async (segmentId: string) =>
    (
      await stack.db.query(
        'SELECT status, requested, matched::int, added::int, removed::int FROM audience.segment_evaluations WHERE segment_id = $1',
        [segmentId],
      )
    ).rows[0];

  /** `USERS` users of the project from `from` on, with a volume of 500 USD each: all match the condition below. */
  async function seedUsers(from: number) {
    await stack.db.query(
      `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, volume_usd, updated_at)
       SELECT $1, 'evm_address', '0x' || lpad(to_hex(n), 40, '0'), 500, now() FROM generate_series($2::int, $2::int + $3::int - 1) n`,
      [project.id, from, USERS],
    );
  }

  async function untilCompleted(segmentId: string, requested: number) {
    return pollUntil(
      async () => {
        const evaluation = await evaluationOf(segmentId);
        return evaluation?.status === 'completed' && evaluation.requested === requested ? evaluation : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 100, what: `evaluation ${requested} of ${segmentId} to complete` },
    );
  }

  /** Exactly `expected` dynamic entries, counted right, each announced once. */
  async function expectExactly(segmentId: string, expected: number) {
    expect(
      await count("SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1 AND kind = 'dynamic' AND source = 'condition'", [segmentId]),
    ).toBe(expected);
    expect(await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segmentId])).toBe(expected);
    expect(await count('SELECT entries_count AS n FROM audience.segments WHERE id = $1', [segmentId])).toBe(expected);
    const announced = `SELECT u->>'identifier' AS identifier FROM audience.outbox o, jsonb_array_elements(o.payload->'users') u
                       WHERE o.type = 'audience.entry_added' AND o.payload->>'segment_id' = $1`;
    expect(await count(`SELECT count(*) AS n FROM (${announced}) a`, [segmentId])).toBe(expected);
    expect(await count(`SELECT count(DISTINCT identifier) AS n FROM (${announced}) a`, [segmentId])).toBe(expected);
  }

  it('loses and doubles nothing when the audience process is killed (SIGKILL) in the middle of the evaluation statement', async () => {
    const segment = await createSegment(stack.gateway, project, { condition: { metric: 'volume_usd', op: 'gte', value: '100' } });
    await untilCompleted(segment.id, 1);
    await seedUsers(1);
    // The statement inserts the entries, then waits to update the segment's count: the process dies there.
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segments WHERE id = $1 FOR NO KEY UPDATE', [segment.id]);
    try {
      const started = await api.post(`/api/v1/projects/${project.id}/audiences/${segment.id}/evaluate`, { key: project.keys.admin });
      expect(started.status).toBe(202);
      await pollUntil(async () => (await lock.waiters()) >= 1, {
        timeoutMs: 20_000,
        intervalMs: 20,
        what: 'the evaluation to wait for the segment row',
      });
      expect(await evaluationOf(segment.id)).toMatchObject({ status: 'active', requested: 2 });
      await audience.kill();
      await audience.restart();
      // Nothing of the dead statement was committed.
      expect(await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segment.id])).toBe(0);
    } finally {
      await lock.release();
    }
    expect(await untilCompleted(segment.id, 2)).toMatchObject({ matched: USERS, added: USERS, removed: 0 });
    await expectExactly(segment.id, USERS);
  }, 90_000);

  it('evaluates an audience requested while Redis was away once Redis is back empty, without a restart', async () => {
    const other = await createProject(stack.gateway);
    await stack.db.query(
      `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, volume_usd, updated_at)
       SELECT $1, 'evm_address', '0x' || lpad(to_hex(n), 40, '0'), 500, now() FROM generate_series(1, $2::int) n`,
      [other.id, USERS],
    );
    await stack.redis!.stop();
    const created = await api.post(`/api/v1/projects/${other.id}/audiences`, {
      key: other.keys.admin,
      body: { name: 'Whales', condition: { metric: 'volume_usd', op: 'gte', value: '100' } },
    });
    expect(created.status).toBe(201);
    expect(await evaluationOf(created.body.id)).toMatchObject({ status: 'queued', requested: 1 });
    await stack.redis!.startEmpty();
    expect(await untilCompleted(created.body.id, 1)).toMatchObject({ matched: USERS, added: USERS, removed: 0 });
    await expectExactly(created.body.id, USERS);
  }, 90_000);

  /** A project of its own with `n` users of 500 USD volume, for the tests below. */
  async function projectWithUsers(n: number) {
    const own = await createProject(stack.gateway);
    await stack.db.query(
      `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, volume_usd, updated_at)
       SELECT $1, 'evm_address', '0x' || lpad(to_hex(n), 40, '0'), 500, now() FROM generate_series(1, $2::int) n`,
      [own.id, n],
    );
    return own;
  }

  it('keeps no dynamic audience without its evaluation when the process is killed between the create and the request, and evaluates the retried create', async () => {
    const own = await projectWithUsers(50);
    const body = { name: 'Whales', condition: { metric: 'volume_usd', op: 'gte', value: '100' } };
    // The request's insert waits on the table: the segment's insert is done by then, in the same transaction.
    const lock = await holdRowLock(stack.databaseUrl, 'LOCK TABLE audience.segment_evaluations IN SHARE ROW EXCLUSIVE MODE');
    try {
      const creating = api.post(`/api/v1/projects/${own.id}/audiences`, { key: own.keys.admin, body });
      await pollUntil(async () => (await lock.waiters()) >= 1, {
        timeoutMs: 20_000,
        intervalMs: 20,
        what: 'the create to wait for the evaluation request',
      });
      await audience.kill();
      expect((await creating).status).not.toBe(201);
    } finally {
      await lock.release();
    }
    // The dead transaction took its segment with it: nothing to evaluate, nothing half-made.
    expect(await count('SELECT count(*) AS n FROM audience.segments WHERE project_id = $1', [own.id])).toBe(0);
    await audience.restart();
    const created = await api.post(`/api/v1/projects/${own.id}/audiences`, { key: own.keys.admin, body });
    expect(created.status).toBe(201);
    expect(await untilCompleted(created.body.id, 1)).toMatchObject({ matched: 50, added: 50, removed: 0 });
    await expectExactly(created.body.id, 50);
  }, 90_000);

  it('keeps the old condition when the process is killed between a PATCH of the condition and its request, and evaluates the retried PATCH', async () => {
    const own = await projectWithUsers(30);
    const segment = await createSegment(stack.gateway, own, { condition: { metric: 'volume_usd', op: 'gte', value: '1000' } });
    expect(await untilCompleted(segment.id, 1)).toMatchObject({ matched: 0, added: 0 });
    const patch = () =>
      api.patch(`/api/v1/projects/${own.id}/audiences/${segment.id}`, {
        key: own.keys.admin,
        body: { condition: { metric: 'volume_usd', op: 'gte', value: '100' } },
      });
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segment_evaluations WHERE segment_id = $1 FOR UPDATE', [segment.id]);
    try {
      const patching = patch();
      await pollUntil(async () => (await lock.waiters()) >= 1, {
        timeoutMs: 20_000,
        intervalMs: 20,
        what: 'the PATCH to wait for the evaluation request',
      });
      await audience.kill();
      expect((await patching).status).not.toBe(200);
    } finally {
      await lock.release();
    }
    const stored = async () =>
      (await stack.db.query("SELECT condition->>'value' AS value FROM audience.segments WHERE id = $1", [segment.id])).rows[0].value;
    expect(await stored()).toBe('1000');
    expect(await evaluationOf(segment.id)).toMatchObject({ status: 'completed', requested: 1 });
    await audience.restart();
    expect((await patch()).status).toBe(200);
    expect(await untilCompleted(segment.id, 2)).toMatchObject({ matched: 30, added: 30, removed: 0 });
    await expectExactly(segment.id, 30);
  }, 90_000);
});
