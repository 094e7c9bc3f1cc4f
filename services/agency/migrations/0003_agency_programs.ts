import { type Kysely, sql } from 'kysely';

/**
 * Master affiliates (agencies) and their sub-affiliates, tier protection, and applications. Every
 * relation that attribution reads at a past moment is a history of periods [from, to): a period is
 * closed, never deleted, so "who was the master, at what spread, at t" stays answerable.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per period of master status; open (removed_at NULL) while it lasts.
  await sql`
    CREATE TABLE agency_designations (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      designated_at timestamptz NOT NULL,
      designated_by text,
      removed_at timestamptz,
      removed_by text,
      CHECK (removed_at IS NULL OR removed_at >= designated_at)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX agency_designations_one_open ON agency_designations (affiliate_id) WHERE removed_at IS NULL`.execute(db);
  await sql`CREATE INDEX agency_designations_list_idx ON agency_designations (project_id, designated_at DESC, id DESC) WHERE removed_at IS NULL`.execute(
    db,
  );

  // The spread of a master over time: a designation opens a period, a change closes it and opens the next, a removal closes it.
  await sql`
    CREATE TABLE agency_spreads (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      designation_id bigint NOT NULL REFERENCES agency_designations (id),
      master_id uuid NOT NULL REFERENCES affiliates (id),
      spread_bps integer NOT NULL CHECK (spread_bps BETWEEN 0 AND 10000),
      valid_from timestamptz NOT NULL,
      valid_to timestamptz,
      set_by text,
      CHECK (valid_to IS NULL OR valid_to >= valid_from)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX agency_spreads_one_open ON agency_spreads (master_id) WHERE valid_to IS NULL`.execute(db);
  // "The master's spread at t" for attribution.
  await sql`CREATE INDEX agency_spreads_period_idx ON agency_spreads (master_id, valid_from DESC)`.execute(db);

  // Which master a sub-affiliate was bound to, when.
  await sql`
    CREATE TABLE sub_affiliate_bindings (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      designation_id bigint NOT NULL REFERENCES agency_designations (id),
      master_id uuid NOT NULL REFERENCES affiliates (id),
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      bound_from timestamptz NOT NULL,
      bound_to timestamptz,
      bound_by text,
      unbound_by text,
      CHECK (master_id <> affiliate_id),
      CHECK (bound_to IS NULL OR bound_to >= bound_from)
    )`.execute(db);
  // At most one master per affiliate, whatever runs concurrently.
  await sql`CREATE UNIQUE INDEX sub_affiliate_bindings_one_open ON sub_affiliate_bindings (affiliate_id) WHERE bound_to IS NULL`.execute(db);
  // "Its master at t" for attribution; a master's current sub-affiliates for the lists and counts.
  await sql`CREATE INDEX sub_affiliate_bindings_period_idx ON sub_affiliate_bindings (affiliate_id, bound_from DESC)`.execute(db);
  await sql`CREATE INDEX sub_affiliate_bindings_master_idx ON sub_affiliate_bindings (master_id, bound_from DESC, id DESC) WHERE bound_to IS NULL`.execute(
    db,
  );

  // Tier protection periods: in force at t when starts_at <= t < least(expires_at, ended_at).
  await sql`
    CREATE TABLE tier_protections (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      tier_id uuid NOT NULL,
      starts_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      set_by text,
      ended_at timestamptz,
      ended_by text,
      CHECK (expires_at > starts_at),
      CHECK (ended_at IS NULL OR ended_at >= starts_at)
    )`.execute(db);
  // The latest protection of an affiliate is the only one not ended; setting a new one ends it first.
  await sql`CREATE UNIQUE INDEX tier_protections_one_open ON tier_protections (affiliate_id) WHERE ended_at IS NULL`.execute(db);
  await sql`CREATE INDEX tier_protections_period_idx ON tier_protections (affiliate_id, starts_at DESC)`.execute(db);

  await sql`
    CREATE TABLE applications (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      name text NOT NULL,
      region text CHECK (region ~ '^[A-Z]{2}$'),
      message text,
      code text CHECK (code ~ '^[A-Za-z0-9_-]{3,32}$'),
      status text NOT NULL CHECK (status IN ('pending', 'on_hold', 'approved', 'rejected')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      hold_note text,
      held_at timestamptz,
      held_by text,
      decided_at timestamptz,
      decided_by text,
      rejection_reason text,
      audience_id uuid,
      affiliate_id uuid REFERENCES affiliates (id),
      granted_code text,
      CHECK ((status IN ('approved', 'rejected')) = (decided_at IS NOT NULL)),
      CHECK (status <> 'approved' OR (audience_id IS NOT NULL AND affiliate_id IS NOT NULL)),
      CHECK (status <> 'rejected' OR rejection_reason IS NOT NULL)
    )`.execute(db);
  // One open application per user per project; decided ones are kept beside a new one.
  await sql`
    CREATE UNIQUE INDEX applications_one_open ON applications (project_id, identifier_type, identifier)
    WHERE status IN ('pending', 'on_hold')`.execute(db);
  await sql`CREATE INDEX applications_list_idx ON applications (project_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX applications_status_idx ON applications (project_id, status, created_at, id)`.execute(db);
  await sql`CREATE INDEX applications_user_idx ON applications (project_id, identifier_type, identifier, created_at DESC)`.execute(db);

  // The membership projection behind the affiliate list's audience filters: fed by the audience
  // service's entry events (never read from its schema). A row is a user's entry of one kind in one
  // segment; `present` and `changed_at` (the event's time) let events that arrive out of order
  // leave the latest state, and a deleted segment's late events change nothing.
  await sql`
    CREATE TABLE audience_memberships (
      project_id uuid NOT NULL,
      segment_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('static', 'dynamic')),
      present boolean NOT NULL,
      changed_at timestamptz NOT NULL,
      PRIMARY KEY (segment_id, identifier_type, identifier, kind)
    )`.execute(db);
  await sql`
    CREATE TABLE deleted_segments (
      segment_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      deleted_at timestamptz NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE deleted_segments, audience_memberships, applications, tier_protections, sub_affiliate_bindings, agency_spreads, agency_designations`.execute(
    db,
  );
}
