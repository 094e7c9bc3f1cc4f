import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { MovementDecisionService } from '../domain/movement-decision.service';

/** Movements one transaction of the release makes available. */
export const RELEASE_BATCH = 1_000;

/**
 * Releases held movements whose hold has passed (MovementDecisionService.releaseDue): available,
 * into their open claim checks, leaderboards grown, in transactions of RELEASE_BATCH. Run by one
 * BullMQ job scheduler every CLAIM_RELEASE_EVERY_MS, which the relay keeps in place (re-created when
 * Redis loses it). The job carries nothing: what is due is read from PostgreSQL at each run, so a
 * late, repeated or concurrent run releases each movement once.
 */
export const releaseHeldMovementsJob: JobDefinition<Record<string, never>> = {
  queue: 'claim-release-held-movements',
  data: z.object({}).strict(),
};

export const RELEASE_SCHEDULER_ID = 'release-held-movements';

export function releaseHeldMovements(decisions: MovementDecisionService): JobProcessor<Record<string, never>> {
  return () => decisions.releaseDue(RELEASE_BATCH);
}
