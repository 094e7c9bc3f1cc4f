import { type Kysely, sql } from 'kysely';

/**
 * Invite codes (the SDK's `/referral_codes`, docs/affiliates.md#invite-codes) and the history of
 * ended referrals:
 *
 * - `invite_codes`: codes generated for an affiliate, each with its `max_uses` (null: unlimited, 0:
 *   disabled) and its `uses`, counted by one conditional UPDATE in the referral's transaction, so
 *   concurrent uses of the last slot give exactly one success.
 * - A code is unique in the project whatever its letter case across both `affiliate_codes` and
 *   `invite_codes`: each table has its own unique index, and a trigger on each, under an advisory lock
 *   per (project, lower(code)), refuses a code the other table holds, as a unique violation of
 *   `affiliate_codes_project_code_key` (so the affiliate paths answer CODE_IN_USE as before).
 * - `ended_referrals`: a referral ended by its user or an admin (deleteReferral) leaves `referrals`
 *   (the user may be referred again) and is kept here with who ended it and when.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE invite_codes (
      project_id uuid NOT NULL,
      code text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{3,32}$'),
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      max_uses integer CHECK (max_uses >= 0),
      uses integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX invite_codes_project_code_key ON invite_codes (project_id, lower(code))`.execute(db);
  // An affiliate's invite codes, newest first (listUserReferralCodes).
  await sql`CREATE INDEX invite_codes_affiliate_idx ON invite_codes (affiliate_id, created_at DESC, code)`.execute(db);

  // One namespace of codes per project: the lock serialises inserts of one code into either table, and
  // the check (a fresh snapshot per statement) then sees what the other committed.
  await sql`
    CREATE FUNCTION refuse_code_held_elsewhere() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('project-code:' || NEW.project_id::text || ':' || lower(NEW.code), 0));
      IF TG_TABLE_NAME = 'invite_codes' THEN
        PERFORM 1 FROM affiliate_codes WHERE project_id = NEW.project_id AND lower(code) = lower(NEW.code);
      ELSE
        PERFORM 1 FROM invite_codes WHERE project_id = NEW.project_id AND lower(code) = lower(NEW.code);
      END IF;
      IF FOUND THEN
        RAISE EXCEPTION 'the code % is already used in this project', NEW.code
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'affiliate_codes_project_code_key';
      END IF;
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER invite_codes_one_namespace BEFORE INSERT ON invite_codes
    FOR EACH ROW EXECUTE FUNCTION refuse_code_held_elsewhere()`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_codes_one_namespace BEFORE INSERT ON affiliate_codes
    FOR EACH ROW EXECUTE FUNCTION refuse_code_held_elsewhere()`.execute(db);

  await sql`
    CREATE TABLE ended_referrals (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      code text NOT NULL,
      referred_at timestamptz NOT NULL,
      ended_at timestamptz NOT NULL,
      ended_by text NOT NULL CHECK (ended_by IN ('user', 'admin')),
      actor_api_key_id text,
      CHECK (ended_at >= referred_at)
    )`.execute(db);
  await sql`CREATE INDEX ended_referrals_user_idx ON ended_referrals (project_id, identifier_type, identifier, ended_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER affiliate_codes_one_namespace ON affiliate_codes`.execute(db);
  await sql`DROP TABLE ended_referrals, invite_codes`.execute(db);
  await sql`DROP FUNCTION refuse_code_held_elsewhere()`.execute(db);
}
