import type { JobsOptions } from 'bullmq';
import type { JobDefinition, QueueKit } from '../../services/platform/queue';

/**
 * Adds a job for the stack's own workers and waits for it by polling its state, bounded.
 * (Queue events are not used here: a listener that connects after the job finished would miss it.)
 */
export async function runJob<T>(
  queues: QueueKit,
  definition: JobDefinition<T>,
  payload: T,
  options: JobsOptions = {},
  timeoutMs = 15_000,
): Promise<unknown> {
  const added = await queues.enqueue(definition, payload, options);
  const queue = queues.queue(definition.queue);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const state = await queue.getJobState(added.id!);
    if (state === 'completed' || state === 'failed') {
      // Read after the state says it is done: a job read while it was still active has no return value yet.
      const job = (await queue.getJob(added.id!))!;
      if (state === 'failed') throw new Error(`job ${added.id} failed: ${job.failedReason}`);
      return job.returnvalue;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${added.id} did not finish within ${timeoutMs} ms`);
}
