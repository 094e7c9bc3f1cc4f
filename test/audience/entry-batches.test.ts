import { randomUUID } from 'node:crypto';
import { QueueKit } from '../../services/platform/queue';
import { applyEntryBatchJob } from '../../services/audience/jobs/apply-entry-batch.job';
import { createLogger } from '../../services/platform/logger';
import { createProject, createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { holdRowLock } from '../helpers/faults/row-lock';
import { runJob } from '../helpers/jobs';
import { pollUntil } from '../helpers/poll';
import { startTestGateway, type TestStack } from '../helpers/stack';

const evm = (n: number) => ({ identifier: evmAddress(n), identifier_type: 'evm_address' });

describe('batch entry add (POST /v1/audience-segments/{segmentId}/entries/batch)', () => {
  let stack: TestStack;
  let project: TestProject;
  let queues: QueueKit;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    queues = new QueueKit({ redisUrl: stack.redisUrl, prefix: stack.queuePrefix, logger: createLogger({ service: 'test', level: 'silent' }) });
  });
  afterAll(async () => {
    await queues.close();
    await stack.stop();
  });

  const batchPath = (segmentId: string, wait = false) => `/v1/audience-segments/${segmentId}/entries/batch${wait ? '?wait=true' : ''}`;
  const entriesIn = async (segmentId: string) =>
    (await stack.db.query('SELECT identifier FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [segmentId])).rows.map(
      (row) => row.identifier as string,
    );
  const batchesOf = async (segmentId: string) =>
    (await stack.db.query('SELECT count(*)::int AS n FROM audience.entry_batches WHERE segment_id = $1', [segmentId])).rows[0].n as number;
  const segmentCount = async (segmentId: string) =>
    (await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segmentId}`, { key: project.keys.admin })).body.entries_count;

  it('queues the batch (202) and reports its job until it completes', async () => {
    const segment = await createSegment(stack, project);
    const submitted = await stack.api.post(batchPath(segment.id), { key: project.keys.service, body: { entries: [evm(1), evm(2)] } });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toEqual({ job_id: expect.any(String), status: 'queued', received: 2, added: 0, skipped: 0, error: null });

    const finished = await stack.api.get(`${batchPath(segment.id)}/${submitted.body.job_id}?wait=true`, { key: project.keys.service });
    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ job_id: submitted.body.job_id, status: 'completed', received: 2, added: 2, skipped: 0 });
    expect(await entriesIn(segment.id)).toEqual([evmAddress(1), evmAddress(2)]);
    expect(await segmentCount(segment.id)).toBe(2);
  });

  it('with ?wait=true answers 200 once the job has finished', async () => {
    const segment = await createSegment(stack, project);
    const response = await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body: { entries: [evm(3)] } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'completed', received: 1, added: 1, skipped: 0 });
  });

  it('refuses a batch with any invalid entry, naming the indexes, and writes nothing', async () => {
    const segment = await createSegment(stack, project);
    const entries = [
      evm(20),
      { identifier: '0x12', identifier_type: 'evm_address' },
      evm(21),
      { identifier: evmAddress(22), identifier_type: 'btc' },
    ];
    const response = await stack.api.post(batchPath(segment.id), { key: project.keys.service, body: { entries } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_BATCH');
    expect(response.body.details).toEqual([
      { field: 'entries[1].identifier', reason: expect.stringContaining('evm_address') },
      { field: 'entries[3].identifier_type', reason: expect.any(String) },
    ]);
    expect(await entriesIn(segment.id)).toEqual([]);
    expect(await batchesOf(segment.id)).toBe(0);
  });

  it('refuses malformed bodies with 400 before anything is stored', async () => {
    const segment = await createSegment(stack, project);
    const bodies: Array<{ body?: unknown; rawBody?: string }> = [
      { body: { entries: [] } },
      { body: { entries: 'all of them' } },
      { body: { entries: [{ identifier: 42, identifier_type: 'evm_address' }] } },
      { body: { entries: [evm(1)], mode: 'replace' } },
      { rawBody: '{"entries": [' },
    ];
    for (const body of bodies) {
      const response = await stack.api.post(batchPath(segment.id), {
        key: project.keys.service,
        ...body,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
    }
    expect(await batchesOf(segment.id)).toBe(0);
  });

  it('answers 413 BATCH_TOO_LARGE to 10,001 entries before reading them one by one, storing nothing', async () => {
    const segment = await createSegment(stack, project);
    const entries = Array.from({ length: 10_001 }, (_, i) => evm(100_000 + i));
    const tooMany = await stack.api.post(batchPath(segment.id), { key: project.keys.service, body: { entries } });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('BATCH_TOO_LARGE');
    expect(await batchesOf(segment.id)).toBe(0);
  });

  it('answers a retry with the same Idempotency-Key with the same job, adding nothing twice', async () => {
    const segment = await createSegment(stack, project);
    const body = { entries: [evm(30), evm(31)] };
    const headers = { 'idempotency-key': `import-${randomUUID()}` };
    const first = await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body, headers });
    const retries = await Promise.all([1, 2, 3].map(() => stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body, headers })));

    for (const retry of retries) {
      expect(retry.body.job_id).toBe(first.body.job_id);
      expect(retry.body).toMatchObject({ status: 'completed', added: 2, skipped: 0 });
    }
    expect(await batchesOf(segment.id)).toBe(1);
    expect(await entriesIn(segment.id)).toEqual([evmAddress(30), evmAddress(31)]);
  });

  it('answers 409 when an Idempotency-Key is reused for a different request', async () => {
    const segment = await createSegment(stack, project);
    const headers = { 'idempotency-key': `reuse-${randomUUID()}` };
    await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body: { entries: [evm(50)] }, headers });
    const different = await stack.api.post(batchPath(segment.id), { key: project.keys.service, body: { entries: [evm(51)] }, headers });
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await entriesIn(segment.id)).toEqual([evmAddress(50)]);
  });

  it('changes nothing when a finished batch’s job is delivered again', async () => {
    const segment = await createSegment(stack, project);
    const done = await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body: { entries: [evm(60), evm(61)] } });
    expect(done.body.status).toBe('completed');

    const outcome = await runJob(queues, applyEntryBatchJob, { batchId: done.body.job_id }, { jobId: `redelivery-${done.body.job_id}` });
    expect(outcome).toEqual({ applied: false, reason: 'finished' });
    expect(await entriesIn(segment.id)).toEqual([evmAddress(60), evmAddress(61)]);
    expect(await segmentCount(segment.id)).toBe(2);
    const job = await stack.api.get(`${batchPath(segment.id)}/${done.body.job_id}`, { key: project.keys.service });
    expect(job.body).toMatchObject({ added: 2, skipped: 0 });
  });

  /** A batch written straight to PostgreSQL, as submit stores it, but with no job in Redis. */
  /** A batch stored as the gateway stores it (`queued`), or as its job marks it when it starts (`active`). */
  async function storedBatch(
    segmentId: string,
    identifiers: string[],
    { batchId = randomUUID(), status = 'queued' }: { batchId?: string; status?: 'queued' | 'active' } = {},
  ): Promise<string> {
    await stack.db.query(
      `INSERT INTO audience.entry_batches (id, project_id, segment_id, request_hash, status, identifiers, identifier_types, received, created_at)
       VALUES ($1, $2, $3, 'h', $4, $5, $6, $7, $8)`,
      [batchId, project.id, segmentId, status, identifiers, identifiers.map(() => 'evm_address'), identifiers.length, stack.clock.now()],
    );
    return batchId;
  }
  const untilJobFailed = (batchId: string) =>
    pollUntil(async () => (await queues.inspect(applyEntryBatchJob, batchId))?.state === 'failed', {
      timeoutMs: 5_000,
      what: 'the job to fail',
    });
  const batchRow = async (batchId: string) =>
    (await stack.db.query('SELECT status, added, skipped, error FROM audience.entry_batches WHERE id = $1', [batchId])).rows[0];
  const untilFinished = (batchId: string) =>
    pollUntil(
      async () => {
        const row = await batchRow(batchId);
        return row.status === 'completed' || row.status === 'failed' ? row : undefined;
      },
      { timeoutMs: 10_000, what: `batch ${batchId} to finish` },
    );

  it('applies a stored batch whose job never reached Redis, through the relay, without a restart', async () => {
    const segment = await createSegment(stack, project);
    const batchId = await storedBatch(segment.id, [evmAddress(70), evmAddress(71)]);

    expect(await untilFinished(batchId)).toMatchObject({ status: 'completed', added: 2, skipped: 0 });
    expect(await entriesIn(segment.id)).toEqual([evmAddress(70), evmAddress(71)]);
    expect(await segmentCount(segment.id)).toBe(2);
  });

  it('queues again, with fresh attempts, a stored batch whose job failed for good', async () => {
    const segment = await createSegment(stack, project);
    const batchId = randomUUID();
    // The batch's job has failed for good (here: it carried bad data) before the relay looks at the batch.
    await queues.enqueue(applyEntryBatchJob, { batchId: 'not-a-batch' }, { jobId: batchId });
    await untilJobFailed(batchId);
    await storedBatch(segment.id, [evmAddress(72)], { batchId, status: 'active' });

    expect(await untilFinished(batchId)).toMatchObject({ status: 'completed', added: 1 });
    expect(await queues.inspect(applyEntryBatchJob, batchId)).toMatchObject({ state: 'completed', requeues: 1 });
    expect(await entriesIn(segment.id)).toEqual([evmAddress(72)]);
  });

  it('marks a batch failed, with its reason, once its job has failed more often than the relay re-queues', async () => {
    const segment = await createSegment(stack, project);
    const batchId = randomUUID();
    // A job the relay has already put back RELAY_MAX_REQUEUES (3) times, failed once more.
    await queues
      .queue(applyEntryBatchJob.queue)
      .add(applyEntryBatchJob.queue, { payload: { batchId: 'not-a-batch' }, requeues: 3 }, { jobId: batchId });
    await untilJobFailed(batchId);
    await storedBatch(segment.id, [evmAddress(73)], { batchId, status: 'active' });

    expect(await untilFinished(batchId)).toEqual({
      status: 'failed',
      added: 0,
      skipped: 0,
      error: 'the batch could not be applied; submit it again',
    });
    const job = await stack.api.get(`${batchPath(segment.id)}/${batchId}`, { key: project.keys.service });
    expect(job.body).toMatchObject({ status: 'failed', error: 'the batch could not be applied; submit it again' });
    expect(await entriesIn(segment.id)).toEqual([]);
  });

  it('answers 503, having stored nothing, when the segment stays locked by other work past the deadline', async () => {
    // A gateway whose calls have a short deadline, so the lock outlasts it quickly.
    const hurried = await startTestGateway({ ...stack, env: { GRPC_TIMEOUT_MS: '1500' } });
    const segment = await createSegment(stack, project);
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM audience.segments WHERE id = $1 FOR UPDATE', [segment.id]);
    try {
      const startedAt = Date.now();
      const response = await hurried.api.post(batchPath(segment.id), { key: project.keys.service, body: { entries: [evm(74)] } });
      // The lock is held until the test releases it: an answer at all shows the deadline ended the wait
      // (the bound leaves room for a loaded machine, far below the test's own timeout).
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: 503, code: 'AUDIENCE_BUSY', message: expect.stringContaining('nothing was stored'), details: [] });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await lock.release();
      await hurried.stop();
    }
    expect(await batchesOf(segment.id)).toBe(0);
    // Sent again once the lock is gone: stored and applied once.
    const again = await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body: { entries: [evm(74)] } });
    expect(again.body).toMatchObject({ status: 'completed', added: 1 });
    expect(await batchesOf(segment.id)).toBe(1);
  });

  it('answers 404 for an unknown job, or a job asked for under another segment', async () => {
    const segment = await createSegment(stack, project);
    const other = await createSegment(stack, project);
    const done = await stack.api.post(batchPath(segment.id, true), { key: project.keys.service, body: { entries: [evm(80)] } });
    for (const path of [`${batchPath(segment.id)}/${randomUUID()}`, `${batchPath(other.id)}/${done.body.job_id}`, `${batchPath(segment.id)}/nope`]) {
      const response = await stack.api.get(path, { key: project.keys.service });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('BATCH_JOB_NOT_FOUND');
    }
  });

  it('answers 404 for a segment of another project and is served under /api/v1 too', async () => {
    const other = await createProject(stack);
    const foreign = await createSegment(stack, other);
    const refused = await stack.api.post(batchPath(foreign.id), { key: project.keys.service, body: { entries: [evm(90)] } });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('AUDIENCE_NOT_FOUND');

    const aliased = await stack.api.post(`/api${batchPath(foreign.id, true)}`, { key: other.keys.service, body: { entries: [evm(90)] } });
    expect(aliased.status).toBe(200);
    expect(aliased.body.added).toBe(1);
  });
});
