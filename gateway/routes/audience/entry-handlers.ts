import { MAX_BATCH_WAIT_MS } from '../../../services/rules/contract-limits';
import type { ServiceClients } from '../../clients';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import { presentEntry, presentEntryBatch } from './audience.presenters';
import { batchBody, entryBatchSchema, idempotencyHeaders, MAX_BATCH_ENTRIES, waitQuery } from './audience.schemas';

/**
 * The entry handlers the /v1 API (service keys, the key's project, :segmentId) and the dashboard
 * (admin keys, the path's project, :audienceId) share: only how the project and segment are named differs.
 */

/** How long ?wait=true waits for a batch job. */
const BATCH_WAIT_MS = MAX_BATCH_WAIT_MS;
/** The gRPC deadline of a waiting call: the wait plus room for the answer. */
const WAITING_CALL_TIMEOUT_MS = BATCH_WAIT_MS + 5_000;

type Caller = { caller: { projectId: string } };
type EntryPageQuery = { page: number; page_size: number; cursor?: string; search?: string };
type BatchBody = { entries: Array<{ identifier: string; identifier_type: string }> };

export const listEntries =
  <P>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({ params, query, caller }: Caller & { params: P; query: EntryPageQuery }) => {
    const page = await clients.audience.listEntries({
      projectId: caller.projectId,
      segmentId: segmentIdOf(params),
      page: pageRequest(query),
      cursor: query.cursor,
      identifierPrefix: query.search,
    });
    return { status: 200 as const, body: listBody(page, presentEntry, true) };
  };

/** What a batch of entries takes and answers, the same on both paths (their summaries and access differ). */
export const ENTRY_BATCH_REQUEST = {
  query: waitQuery,
  headers: idempotencyHeaders,
  body: batchBody,
  bodyLimit: 'batch',
  arrayLimit: { field: 'entries', max: MAX_BATCH_ENTRIES, code: 'BATCH_TOO_LARGE' },
  responses: {
    200: { description: 'With ?wait=true: the finished job', schema: entryBatchSchema },
    202: { description: 'The job, queued (or still running after the wait)', schema: entryBatchSchema },
    409: { description: 'IDEMPOTENCY_KEY_REUSED: the key was used for a different request' },
    503: {
      description:
        'QUEUE_UNAVAILABLE (the job queue is down) or AUDIENCE_BUSY (the segment stayed locked past the deadline): ' +
        'nothing was stored; retry after `Retry-After` with the same Idempotency-Key',
    },
  },
} as const;

export const submitEntryBatch =
  <P>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({
    params,
    query,
    headers,
    body,
    caller,
  }: Caller & { params: P; query: { wait: boolean }; headers: { 'idempotency-key'?: string }; body: BatchBody }) => {
    const response = await clients.audience.submitEntryBatch(
      {
        projectId: caller.projectId,
        segmentId: segmentIdOf(params),
        entries: body.entries.map((entry) => ({ identifier: entry.identifier, identifierType: entry.identifier_type })),
        idempotencyKey: headers['idempotency-key'],
        waitMs: query.wait ? BATCH_WAIT_MS : 0,
      },
      { timeoutMs: query.wait ? WAITING_CALL_TIMEOUT_MS : undefined },
    );
    const batch = presentEntryBatch(required(response.batch, 'batch'));
    const finished = batch.status === 'completed' || batch.status === 'failed';
    return { status: query.wait && finished ? (200 as const) : (202 as const), body: batch };
  };

export const getEntryBatch =
  <P extends { jobId: string }>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({ params, query, caller }: Caller & { params: P; query: { wait: boolean } }) => {
    const batch = await clients.audience.getEntryBatch(
      { projectId: caller.projectId, segmentId: segmentIdOf(params), jobId: params.jobId, waitMs: query.wait ? BATCH_WAIT_MS : 0 },
      { timeoutMs: query.wait ? WAITING_CALL_TIMEOUT_MS : undefined },
    );
    return { status: 200 as const, body: presentEntryBatch(batch) };
  };
