import { z } from 'zod';
import { CliError, EXIT } from '../exit-codes';
import type { ApiClient } from '../http/api-client';
import type { EntryRow } from './entry-rows';

/** The batch job as the API answers it (entryBatchSchema in the OpenAPI document). */
const entryBatch = z.object({
  job_id: z.string(),
  status: z.string(),
  received: z.number().int(),
  added: z.number().int(),
  skipped: z.number().int(),
  error: z.string().nullable(),
});
export type EntryBatch = z.output<typeof entryBatch>;

/** A batch the worker gave up on is sent again under the next key, at most this many times in all. */
const SUBMISSIONS_PER_BATCH = 3;
/** How long one batch may stay unfinished (queued or running) before the import gives up on the server. */
const BATCH_DEADLINE_MS = 10 * 60_000;

/**
 * The Idempotency-Key of one batch of one file: the segment, the file's SHA-256, the batch size and
 * the batch's index fix which rows the batch holds, so a run that is interrupted and started again
 * sends each batch under the key it had, and the API answers a batch it already took with that
 * batch's job instead of adding anything twice. `submission` > 1 follows a batch the worker gave
 * up on (status failed: nothing of it was added; the API asks to submit it again, under a new key).
 */
export function batchKey(segmentId: string, sha256: string, batchSize: number, index: number, submission = 1): string {
  return `referral-cli:entries:v1:${segmentId}:${sha256}:${batchSize}:${index}${submission > 1 ? `:${submission}` : ''}`;
}

/**
 * Sends one batch and waits until its job has finished: the job completed, or failed after every
 * submission. Each request may be retried by the client with the same key.
 */
export async function sendEntryBatch(
  api: ApiClient,
  target: { segmentId: string; sha256: string; batchSize: number; index: number },
  rows: EntryRow[],
): Promise<EntryBatch> {
  let batch: EntryBatch | undefined;
  for (let submission = 1; submission <= SUBMISSIONS_PER_BATCH; submission += 1) {
    const { body } = await api.request({
      method: 'POST',
      path: `/v1/audience-segments/${target.segmentId}/entries/batch`,
      query: { wait: 'true' },
      headers: { 'idempotency-key': batchKey(target.segmentId, target.sha256, target.batchSize, target.index, submission) },
      body: { entries: rows.map((row) => ({ identifier: row.identifier, identifier_type: row.identifier_type })) },
      schema: entryBatch,
    });
    batch = await finished(api, target.segmentId, body);
    if (batch.status !== 'failed') return batch;
  }
  return batch!;
}

/** The job once completed or failed: ?wait=true waits up to 30 s a request, so a long job takes several. */
async function finished(api: ApiClient, segmentId: string, job: EntryBatch): Promise<EntryBatch> {
  const deadline = Date.now() + BATCH_DEADLINE_MS;
  let batch = job;
  while (batch.status !== 'completed' && batch.status !== 'failed') {
    if (Date.now() > deadline) {
      throw new CliError(
        EXIT.unavailable,
        `batch job ${batch.job_id} is still ${batch.status} after ${BATCH_DEADLINE_MS / 60_000} minutes; run the import again later`,
      );
    }
    ({ body: batch } = await api.request({
      method: 'GET',
      path: `/v1/audience-segments/${segmentId}/entries/batch/${batch.job_id}`,
      query: { wait: 'true' },
      schema: entryBatch,
    }));
  }
  return batch;
}
