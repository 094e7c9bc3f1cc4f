import { type Kysely, sql } from 'kysely';

/**
 * What `event_count` conditions read (docs/audiences.md#dynamic-audiences): a user's tracking events
 * per name and UTC day, summed from `agency.user_events.counted` by the consumer
 * `audience-user-event-counts`, once per event id (processed_events, in the same transaction). Sums
 * only, so arrival order does not matter. The count is a running sum: bigint, never below zero.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_event_days (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      name text NOT NULL,
      day date NOT NULL,
      count bigint NOT NULL CHECK (count >= 0),
      PRIMARY KEY (project_id, identifier_type, identifier, name, day)
    )`.execute(db);
  // A condition's window over one name, for every user of the project (full evaluation).
  await sql`CREATE INDEX user_event_days_name_idx ON user_event_days (project_id, name, day)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE user_event_days`.execute(db);
}
