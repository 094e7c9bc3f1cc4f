import { sql, type Transaction } from 'kysely';
import type { AudienceDatabase } from '../database';

/**
 * Whether a project's changed condition inputs need re-matching at all: only when it has a dynamic
 * segment (one with a condition). Most projects have none, and recording every touched user in
 * pending_matches (then draining them to match nothing) cost more than the inputs themselves.
 *
 * The check and a segment becoming dynamic must not pass each other: a writer that saw no dynamic
 * segment commits its inputs before that segment's first evaluation reads them. So a writer checks
 * under the project's gate held shared, and a write that gives a segment a condition holds it
 * exclusively until its commit (which queues the evaluation): either the writer's check runs after
 * that commit and sees the segment, or the segment's commit waits for the writer's, and the
 * evaluation, requested by that commit, reads the writer's inputs.
 */
const gateKey = (projectId: string) => sql`hashtextextended(${`audience.dynamic-segments:${projectId}`}, 0)`;

/** In the transaction that gives a segment of the project a condition (insert or update), before its commit. */
export async function holdDynamicSegmentsGate(trx: Transaction<AudienceDatabase>, projectId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${gateKey(projectId)})`.execute(trx);
}

/**
 * True when the project has a dynamic segment, in the writer's transaction (READ COMMITTED): the
 * gate is taken first, in its own statement, so the check's snapshot is taken after any segment
 * write holding the gate has committed.
 */
export async function projectHasDynamicSegments(trx: Transaction<AudienceDatabase>, projectId: string): Promise<boolean> {
  await sql`SELECT pg_advisory_xact_lock_shared(${gateKey(projectId)})`.execute(trx);
  const row = await trx
    .selectFrom('segments')
    .select('id')
    .where('project_id', '=', projectId)
    .where('condition', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
