import { type RawBuilder, sql } from 'kysely';

/**
 * What reversals took back from the movement aliased `alias` (base units, 0 when none): its net is
 * amount − this. A correlated sum over `movement_reversals` by its (movement_id, reversal_id) key, read
 * in the caller's statement (so in the caller's snapshot: read it after a lock in a statement of its own
 * where a reversal may commit meanwhile).
 */
export function reversedAmount(alias: string): RawBuilder<bigint> {
  return sql<bigint>`coalesce((SELECT sum(r.amount) FROM movement_reversals r WHERE r.movement_id = ${sql.ref(`${alias}.id`)}), 0)`;
}
