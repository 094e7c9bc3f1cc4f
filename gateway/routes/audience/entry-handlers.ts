import { MAX_BATCH_WAIT_MS } from '../../../services/common/contract-limits';
import type { ServiceClients } from '../../clients';
import { listBody } from '../../http/list';
import { required } from '../../http/present';
import { presentEntry, presentEntryBatch } from './audience.presenters';

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
      page: { page: query.page, pageSize: query.page_size },
      cursor: query.cursor,
      identifierPrefix: query.search,
    });
    return { status: 200 as const, body: listBody(page, presentEntry, true) };
  };

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
