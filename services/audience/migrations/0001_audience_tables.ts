import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE segments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      name text NOT NULL,
      description text,
      condition jsonb,
      entries_count bigint NOT NULL DEFAULT 0 CHECK (entries_count >= 0),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX segments_project_name_key ON segments (project_id, lower(name))`.execute(db);
  await sql`CREATE INDEX segments_project_created_idx ON segments (project_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE badges (
      segment_id uuid PRIMARY KEY REFERENCES segments (id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      image_url text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);

  // One row per (segment, user): the primary key is what makes batch adds skip duplicates.
  await sql`
    CREATE TABLE entries (
      segment_id uuid NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('static', 'dynamic')),
      source text NOT NULL CHECK (source IN ('dashboard', 'api', 'condition')),
      added_at timestamptz NOT NULL,
      PRIMARY KEY (segment_id, identifier_type, identifier)
    )`.execute(db);
  // The user lookup: every segment of one user in one project, answered from the index alone.
  await sql`CREATE INDEX entries_user_idx ON entries (project_id, identifier, identifier_type) INCLUDE (segment_id)`.execute(db);
  // Entries newest first, paged by keyset.
  await sql`CREATE INDEX entries_segment_recent_idx ON entries (segment_id, added_at DESC, identifier_type DESC, identifier DESC)`.execute(db);

  // A batch request is stored before it is queued: Redis may lose a job, PostgreSQL keeps the work.
  await sql`
    CREATE TABLE entry_batches (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      segment_id uuid NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
      idempotency_key text,
      request_hash text NOT NULL,
      status text NOT NULL CHECK (status IN ('queued', 'active', 'completed', 'failed')),
      identifiers text[],
      identifier_types text[],
      received integer NOT NULL,
      added integer NOT NULL DEFAULT 0,
      skipped integer NOT NULL DEFAULT 0,
      error text,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      finished_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX entry_batches_idempotency_key ON entry_batches (project_id, idempotency_key) WHERE idempotency_key IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX entry_batches_unfinished_idx ON entry_batches (created_at) WHERE status IN ('queued', 'active')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE entry_batches, entries, badges, segments`.execute(db);
}
