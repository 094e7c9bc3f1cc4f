import { status as GrpcStatus } from '@grpc/grpc-js';
import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { applyEntryBatchJob } from '../../services/audience/jobs/apply-entry-batch.job';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { EXPIRE_W8_SCHEDULER_ID, expireW8FormsJob } from '../../services/tax/jobs/expire-w8-forms.job';
import { FAULT_TIMING } from '../helpers/faults/fault-stack';
import { holdRowLock, type RowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, createSegment, evmAddress, type TestProject } from '../helpers/fixtures';
import { standardStatusOf } from '../helpers/grpc-status';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';

/**
 * What a fault probe did to the running stack, kept as tests: the audience service runs as
 * a real process (killed with SIGKILL, stopped with SIGTERM, restarted in place), Redis is a server
 * of the test's own (stopped mid-ingest, started again empty), and row locks are held across
 * crashes. Every test counts rows exactly (nothing lost, nothing twice) and bounds the recovery.
 */
/** "At once" for an answer while a dependency is down, with room for a loaded 2-core machine. */
const FAST_MS = 2_000;

describe('audience batches through process deaths, Redis loss and locks', () => {
  const stack = useFaultStack({ services: ['audience', 'tax'], ownRedis: true });
  let audience: ServiceProcess;
  let project: TestProject;
  let api: Api;
  beforeAll(async () => {
    audience = stack.service('audience');
    api = stack.gateway.api;
    project = await createProject(stack.gateway);
  });

  const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => evmAddress(from + i));
  const submit = (segmentId: string, identifiers: string[], wait = false) =>
    api.post(`/v1/audience-segments/${segmentId}/entries/batch${wait ? '?wait=true' : ''}`, {
      key: project.keys.service,
      body: { entries: identifiers.map((identifier) => ({ identifier, identifier_type: 'evm_address' })) },
    });
  const batchRows = async (segmentId: string) =>
    (
      await stack.db.query<{ id: string; status: string; received: number; added: number; skipped: number }>(
        'SELECT id, status, received, added, skipped FROM audience.entry_batches WHERE segment_id = $1',
        [segmentId],
      )
    ).rows;
  const countOf = async (sql: string, segmentId: string) => Number((await stack.db.query(sql, [segmentId])).rows[0].n);

  /** Polls until every batch of the segment has finished, and returns them. */
  async function untilAllFinished(segmentId: string, expected: number, timeoutMs: number) {
    return pollUntil(
      async () => {
        const rows = await batchRows(segmentId);
        return rows.length === expected && rows.every((row) => row.status === 'completed' || row.status === 'failed') ? rows : undefined;
      },
      { timeoutMs, intervalMs: 100, what: `all ${expected} batches of segment ${segmentId} to finish` },
    );
  }

  /** Every accepted entry is in the segment exactly once, and every count agrees. */
  async function expectExactly(segmentId: string, submitted: string[][], batches: number) {
    const distinct = new Set(submitted.flat()).size;
    const rows = await untilAllFinished(segmentId, batches, 45_000);
    expect(rows.map((row) => row.status)).toEqual(rows.map(() => 'completed'));
    expect(rows.reduce((sum, row) => sum + row.added, 0)).toBe(distinct);
    expect(rows.reduce((sum, row) => sum + row.skipped, 0)).toBe(submitted.flat().length - distinct);
    for (const row of rows) expect(row.added + row.skipped).toBe(row.received);
    expect(await countOf('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', segmentId)).toBe(distinct);
    expect(await countOf('SELECT entries_count AS n FROM audience.segments WHERE id = $1', segmentId)).toBe(distinct);
  }

  /** Until some batch is being applied while others still wait: the middle of an ingest. */
  const untilMidIngest = (segmentId: string) =>
    pollUntil(
      async () => {
        const rows = await batchRows(segmentId);
        return rows.some((row) => row.status === 'active') && rows.some((row) => row.status === 'queued');
      },
      { timeoutMs: 20_000, intervalMs: 5, what: 'a batch being applied while others wait' },
    );

  /** Until `count` backends wait (directly or behind one another) for the row lock. */
  const untilWaiting = (lock: RowLock, count: number) =>
    pollUntil(async () => (await lock.waiters()) >= count, { timeoutMs: 30_000, intervalMs: 50, what: `${count} backends waiting for the row lock` });

  it('loses and doubles nothing when the audience process is killed (SIGKILL) mid-ingest and restarted', async () => {
    const segment = await createSegment(stack.gateway, project);
    // Six batches of 10,000; neighbours overlap by 2,000, so skips are counted too.
    const submitted = Array.from({ length: 6 }, (_, i) => range(i * 8_000, 10_000));
    const accepted = await Promise.all(submitted.map((identifiers) => submit(segment.id, identifiers)));
    expect(accepted.map((response) => response.status)).toEqual(accepted.map(() => 202));

    await untilMidIngest(segment.id);
    await audience.kill();

    // While the service is down the gateway says so, fast, and nothing is stored.
    const refused = await submit(segment.id, range(900_000, 10));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    await audience.restart();
    await expectExactly(segment.id, submitted, 6);
  }, 90_000);

  it('refuses at once, while Redis is away, a key revoked through another gateway replica', async () => {
    const other = await stack.startGateway();
    const keyed = await createProject(stack.gateway);
    const list = (gateway: Api) => gateway.get('/v1/audiences/audience-segments', { key: keyed.keys.service });
    expect((await list(api)).status).toBe(200);
    expect((await list(other.api)).status).toBe(200);

    await stack.redis!.stop();
    // Keys still work without Redis (checked against PostgreSQL)...
    expect((await list(other.api)).status).toBe(200);
    const revoked = await api.delete(`/api/v1/projects/${keyed.id}/api-keys/${keyed.keyIds.service}`, { key: keyed.keys.admin });
    expect(revoked.status).toBe(204);
    // ...and a revoked one is refused by every replica, though no broadcast could reach them.
    expect((await list(other.api)).status).toBe(401);
    expect((await list(api)).status).toBe(401);

    await stack.redis!.startEmpty();
    expect((await list(other.api)).status).toBe(401);
    expect((await list(other.api)).status).toBe(401);
  }, 60_000);

  it('applies every accepted batch after Redis comes back empty, without a restart, and refuses fast while it is away', async () => {
    const segment = await createSegment(stack.gateway, project);
    const submitted = Array.from({ length: 4 }, (_, i) => range(100_000 + i * 8_000, 10_000));
    const accepted = await Promise.all(submitted.map((identifiers) => submit(segment.id, identifiers)));
    expect(accepted.map((response) => response.status)).toEqual(accepted.map(() => 202));
    await untilMidIngest(segment.id);

    await stack.redis!.stop();

    // A submit that raced the outage may still be accepted (stored; the relay queues it later):
    // the answer says which. Once the service sees Redis gone, it refuses and stores nothing.
    let extra = 0;
    const refused = await pollUntil(
      async () => {
        const identifiers = range(200_000 + extra * 10, 10);
        const startedAt = Date.now();
        const response = await submit(segment.id, identifiers);
        if (response.status === 202) {
          submitted.push(identifiers);
          extra += 1;
          return undefined;
        }
        return { response, elapsedMs: Date.now() - startedAt };
      },
      { timeoutMs: 10_000, intervalMs: 20, what: 'the audience service to refuse batches while Redis is away' },
    );
    expect(refused.response.status).toBe(503);
    expect(refused.response.body).toEqual({
      status: 503,
      code: 'QUEUE_UNAVAILABLE',
      message: expect.stringContaining('nothing was stored'),
      details: [],
    });
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // Fast: no retrying against the dead dependency (before the fix: up to 2.4 s), with room for a loaded machine.
    expect(refused.elapsedMs).toBeLessThan(FAST_MS);
    expect((await batchRows(segment.id)).length).toBe(submitted.length);

    // The same refusal as any gRPC client sees it: the standard google.rpc.Status trailer, with
    // the code as ErrorInfo and the delay that became Retry-After as RetryInfo.
    const direct = createGrpcClient(AudienceServiceClient, audience.address, 5_000);
    try {
      const error = await direct.call
        .submitEntryBatch({
          projectId: project.id,
          segmentId: segment.id,
          entries: [{ identifier: evmAddress(1), identifierType: 'evm_address' }],
          waitMs: 0,
        })
        .catch((caught: unknown) => caught);
      expect(standardStatusOf(error)).toEqual({
        code: GrpcStatus.UNAVAILABLE,
        message: expect.stringContaining('nothing was stored'),
        typeUrls: ['type.googleapis.com/google.rpc.ErrorInfo', 'type.googleapis.com/google.rpc.RetryInfo'],
        errorInfo: [{ reason: 'QUEUE_UNAVAILABLE', domain: 'referral', metadata: {} }],
        badRequest: [],
        retryInfo: [{ retryDelay: { seconds: refused.response.headers.get('retry-after'), nanos: 0 } }],
        customTrailers: [],
      });
    } finally {
      direct.close();
    }
    expect((await batchRows(segment.id)).length).toBe(submitted.length);

    const waited = await submit(segment.id, range(300_000, 10), true);
    expect(waited.status).toBe(503);
    expect(waited.body.code).toBe('QUEUE_UNAVAILABLE');
    expect((await batchRows(segment.id)).length).toBe(submitted.length);

    // Sign-in needs Redis for its nonces: 503 with Retry-After, at once.
    const startedAt = Date.now();
    const nonce = await api.post('/api/v1/auth/nonce', { body: { address: evmAddress(1) } });
    expect(Date.now() - startedAt).toBeLessThan(FAST_MS);
    expect(nonce.status).toBe(503);
    expect(nonce.body).toMatchObject({ status: 503, code: 'SIGN_IN_UNAVAILABLE' });
    expect(Number(nonce.headers.get('retry-after'))).toBeGreaterThan(0);

    // Reading a batch (even asking to wait) still answers from PostgreSQL.
    const read = await api.get(`/v1/audience-segments/${segment.id}/entries/batch/${accepted[0]!.body.job_id}?wait=true`, {
      key: project.keys.service,
    });
    expect([200, 202]).toContain(read.status);

    await stack.redis!.startEmpty();
    await expectExactly(segment.id, submitted, submitted.length);
    // The tax service's W-8 sweep schedule lived only in Redis: it is back by itself.
    await pollUntil(() => stack.queues.hasSchedule(expireW8FormsJob, EXPIRE_W8_SCHEDULER_ID), {
      timeoutMs: 10_000,
      what: 'the W-8 expiry schedule to be re-created',
    });
    await pollUntil(async () => (await api.post('/api/v1/auth/nonce', { body: { address: evmAddress(1) } })).status === 200, {
      timeoutMs: 10_000,
      what: 'sign-in to work again',
    });
  }, 90_000);

  it('applies a batch, once the lock is gone, whose job BullMQ failed as stalled after two crashes while a row lock held it', async () => {
    const segment = await createSegment(stack.gateway, project);
    // Blocks the apply (which updates the segment's count), not the submission.
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segments WHERE id = $1 FOR NO KEY UPDATE', [segment.id]);
    try {
      const identifiers = range(400_000, 5);
      const submitted = await submit(segment.id, identifiers);
      expect(submitted.status).toBe(202);
      const batchId: string = submitted.body.job_id;

      // Each process dies while its worker waits for the lock; a dead process's backend keeps
      // waiting (until the lock goes), so the waiters add up: 1, then 2, then 3.
      await untilWaiting(lock, 1);
      await audience.kill();
      await audience.restart();
      await untilWaiting(lock, 2);
      await audience.kill();
      await audience.restart();
      // Stalled a second time: BullMQ fails the job; the relay puts the batch back with fresh attempts.
      await untilWaiting(lock, 3);
      expect(audience.linesWith('job stalled more than allowable limit').length).toBeGreaterThan(0);
      expect(audience.linesWith('relay re-queued work whose job failed').length).toBeGreaterThan(0);
      expect(await stack.queues.inspect(applyEntryBatchJob, batchId)).toMatchObject({ state: 'active', requeues: 1 });

      await lock.release();
      await expectExactly(segment.id, [identifiers], 1);
    } finally {
      await lock.release();
    }
  }, 120_000);

  it('hands a batch stuck on a lock back to the queue when the SIGTERM grace period ends, and exits', async () => {
    const segment = await createSegment(stack.gateway, project);
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segments WHERE id = $1 FOR NO KEY UPDATE', [segment.id]);
    try {
      const identifiers = range(500_000, 5);
      const submitted = await submit(segment.id, identifiers);
      const batchId: string = submitted.body.job_id;
      await untilWaiting(lock, 1);

      const grace = Number(FAULT_TIMING.SHUTDOWN_GRACE_MS);
      const exit = await audience.terminate(grace + 10_000);
      expect(exit).toMatchObject({ code: 0 });
      expect(exit!.elapsedMs).toBeLessThan(grace + 5_000);
      // Handed back, not left to lapse: waiting for the next process, with no stall counted.
      expect(await stack.queues.inspect(applyEntryBatchJob, batchId)).toMatchObject({ state: 'waiting' });
      expect((await stack.queues.queue(applyEntryBatchJob.queue).getJob(batchId))?.stalledCounter).toBe(0);
      expect(audience.linesWith('handed back to the queue')).toHaveLength(1);

      await audience.restart();
      await untilWaiting(lock, 2);
      await lock.release();
      await expectExactly(segment.id, [identifiers], 1);
    } finally {
      await lock.release();
    }
  }, 90_000);
});
