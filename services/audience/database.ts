import type { IdentifierType } from '../rules/identifiers';
import type { ColumnType, Generated } from 'kysely';
import type { OutboxTables } from '../platform/outbox/tables';
import type { EntryBatchStatus, EntryKind, EntrySource, EvaluationStatus } from './domain/vocabulary';
import type { OptionalNullable, Timestamp } from '../platform/db/column-types';

/** The audience schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface AudienceDatabase extends OutboxTables {
  segments: SegmentTable;
  badges: BadgeTable;
  entries: EntryTable;
  entry_batches: EntryBatchTable;
  user_metrics: UserMetricsTable;
  user_conversion_days: UserConversionDayTable;
  user_referral_days: UserReferralDayTable;
  user_event_days: UserEventDayTable;
  user_earning_days: UserEarningDayTable;
  user_traits: UserTraitTable;
  segment_evaluations: SegmentEvaluationTable;
  pending_matches: PendingMatchTable;
  reversed_conversions: ReversedConversionTable;
}

/** How much of a conversion its reversals took back (migration 0012). */
export interface ReversedConversionTable {
  project_id: string;
  conversion_id: string;
  reversed_bps: number;
}

export interface SegmentTable {
  id: Generated<string>;
  project_id: string;
  name: string;
  description: string | null;
  condition: ColumnType<unknown | null, string | null, string | null>;
  /** bigint: int8 is read as bigint (services/platform/db/type-parsers.ts). */
  entries_count: ColumnType<bigint, bigint | number | undefined, bigint | number>;
  /** Set: the segment is a tier of its project (a higher rank is a higher tier); unique per project. */
  tier_rank: OptionalNullable<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BadgeTable {
  segment_id: string;
  name: string;
  description: string | null;
  image_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EntryTable {
  segment_id: string;
  project_id: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  kind: EntryKind;
  source: EntrySource;
  added_at: Timestamp;
}

export interface EntryBatchTable {
  id: string;
  project_id: string;
  segment_id: string;
  idempotency_key: string | null;
  request_hash: string;
  status: EntryBatchStatus;
  identifiers: string[] | null;
  identifier_types: IdentifierType[] | null;
  received: number;
  added: ColumnType<number, number | undefined, number>;
  skipped: ColumnType<number, number | undefined, number>;
  error: string | null;
  created_at: Timestamp;
  started_at: OptionalNullable<Date>;
  finished_at: OptionalNullable<Date>;
}

/** USD figures (fractional NUMERIC): select them cast to text (services/platform/db/type-parsers.ts), written from decimal strings. */
type Usd = ColumnType<string, string | undefined, string>;
/** Integer base units, read as bigint: NUMERIC(78,0) for one amount, whole NUMERIC for a running sum of them. */
type Money = ColumnType<bigint, string | bigint | undefined, string | bigint>;
/** bigint counters: read as bigint, written from numbers or bigints. */
type Counter = ColumnType<bigint, bigint | number | undefined, bigint | number>;

interface UserKey {
  project_id: string;
  identifier_type: IdentifierType;
  identifier: string;
}

/** All-time figures of a user in a project (migration 0004). */
export interface UserMetricsTable extends UserKey {
  volume_usd: Usd;
  revenue_usd: Usd;
  conversions: Counter;
  referred_users: Counter;
  referred_volume_usd: Usd;
  updated_at: Timestamp;
}

export interface UserConversionDayTable extends UserKey {
  name: string;
  day: ColumnType<string, string, string>;
  conversions: Counter;
  volume_usd: Usd;
  revenue_usd: Usd;
}

export interface UserReferralDayTable extends UserKey {
  day: ColumnType<string, string, string>;
  referred_users: Counter;
  referred_volume_usd: Usd;
}

/** A user's tracking events per name and UTC day (migration 0013), what `event_count` conditions sum. */
export interface UserEventDayTable extends UserKey {
  name: string;
  day: ColumnType<string, string, string>;
  count: Counter;
}

export interface UserEarningDayTable extends UserKey {
  currency_id: string;
  day: ColumnType<string, string, string>;
  /** A running sum of payouts: plain NUMERIC (whole), so it may pass 2^256 − 1 (migration 0011). */
  amount: Money;
}

export interface UserTraitTable extends UserKey {
  name: string;
  /** number | string | boolean, as JSON. */
  value: ColumnType<unknown, string, string>;
  updated_at: Timestamp;
}

/** The latest full evaluation of a dynamic segment (migration 0006). */
export interface SegmentEvaluationTable {
  segment_id: string;
  project_id: string;
  status: EvaluationStatus;
  /** How many evaluations were requested: the job of the latest carries this number. */
  requested: number;
  requested_at: Timestamp;
  started_at: OptionalNullable<Date>;
  finished_at: OptionalNullable<Date>;
  matched: ColumnType<bigint | null, number | null | undefined, number | null>;
  added: ColumnType<bigint | null, number | null | undefined, number | null>;
  removed: ColumnType<bigint | null, number | null | undefined, number | null>;
  error: string | null;
}

/** A user incremental matching still has to re-match (migration 0007): the earliest change not matched yet. */
export interface PendingMatchTable extends UserKey {
  changed_at: Timestamp;
}
