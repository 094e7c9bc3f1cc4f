import { type Kysely, sql } from 'kysely';

/**
 * The `send:tracking_event` key role (the name Fuul uses): a key a web page may embed, which may only
 * send tracking events (POST /api/v1/events) and is refused everywhere else (403).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check`.execute(db);
  await sql`
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check
      CHECK (role IN ('admin', 'service_role', 'read_only', 'send:tracking_event'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check`.execute(db);
  await sql`ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check CHECK (role IN ('admin', 'service_role', 'read_only'))`.execute(db);
}
