import type { ColumnType, Generated } from 'kysely';
import type { IdentifierType } from '../rules/identifiers';
import type { ReviewTables } from './review-tables';
import type { ReversalTables } from './reversal-tables';
import type { OutboxTables } from '../platform/outbox/tables';
import type {
  CapKind,
  ClaimCheckStatus,
  ClaimReason,
  ConversionStatus,
  CurrencyType,
  LeaderboardUserType,
  MovementKind,
  MovementStatus,
  PendingReason,
} from './domain/vocabulary';
import type { Nullable, OptionalNullable, Timestamp } from '../platform/db/column-types';

/** The claim schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface ClaimDatabase extends OutboxTables, ReviewTables, ReversalTables {
  currencies: CurrencyTable;
  payout_terms: PayoutTermsTable;
  payout_term_tiers: PayoutTermTierTable;
  conversion_batches: ConversionBatchTable;
  conversions: ConversionTable;
  conversion_upline: ConversionUplineTable;
  claim_checks: ClaimCheckTable;
  movements: MovementTable;
  leaderboard_totals: LeaderboardTotalTable;
  leaderboard_sizes: LeaderboardSizeTable;
  leaderboard_days: LeaderboardDayTable;
  claim_settings: ClaimSettingsTable;
  vouchers: VoucherTable;
  claim_check_credits: ClaimCheckCreditTable;
  chain_cursors: ChainCursorTable;
  point_balances: PointBalanceTable;
}

/** NUMERIC(78,0) base units: bigint both ways (services/platform/db/type-parsers.ts). */
type Money = ColumnType<bigint, bigint, bigint>;
/** A fractional NUMERIC (USD): written as a decimal string, selected as text (the type parser refuses fractions as bigint). */
type Decimal = ColumnType<string, string, string>;

export interface CurrencyTable {
  id: Generated<string>;
  project_id: string;
  /** bigint: int8 is read as bigint. Null for a point currency (migration 0019), and only then. */
  chain_id: ColumnType<bigint | null, bigint | null, bigint | null>;
  address: string | null;
  name: string;
  decimals: number;
  type: CurrencyType;
  created_at: Timestamp;
}

/** Migration 0017: the rewards of referral levels 2..4 (fixed or bps, never both; both null: the level is not paid), of terms and of their tiers alike. */
interface DeeperLevelRewards {
  affiliate2_fixed: OptionalNullable<bigint>;
  affiliate2_bps: OptionalNullable<number>;
  affiliate3_fixed: OptionalNullable<bigint>;
  affiliate3_bps: OptionalNullable<number>;
  affiliate4_fixed: OptionalNullable<bigint>;
  affiliate4_bps: OptionalNullable<number>;
}

export interface PayoutTermsTable extends DeeperLevelRewards {
  project_id: string;
  conversion_name: string;
  currency_id: string;
  end_user_fixed: Nullable<Money>;
  end_user_bps: Nullable<number>;
  affiliate_fixed: Nullable<Money>;
  affiliate_bps: Nullable<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Migration 0008: only members of this audience earn the side's reward (null: everyone may). */
  end_user_allowlist_audience_id: OptionalNullable<string>;
  affiliate_allowlist_audience_id: OptionalNullable<string>;
  /** Migration 0010: days a movement is held before it is available (0..365), and whether it waits for an admin's approval. */
  hold_days: ColumnType<number, number | undefined, number>;
  require_approval: ColumnType<boolean, boolean | undefined, boolean>;
  /** Migration 0013: caps (null: off); the window's amount and days are set together. */
  cap_per_conversion: OptionalNullable<bigint>;
  cap_per_end_user: OptionalNullable<bigint>;
  cap_window_amount: OptionalNullable<bigint>;
  cap_window_days: OptionalNullable<number>;
}

export interface PayoutTermTierTable extends DeeperLevelRewards {
  project_id: string;
  conversion_name: string;
  audience_id: string;
  position: number;
  affiliate_fixed: Nullable<Money>;
  affiliate_bps: Nullable<number>;
}

export interface ConversionBatchTable {
  id: string;
  project_id: string;
  received: number;
  created_at: Timestamp;
  finished_at: OptionalNullable<Date>;
}

export interface ConversionTable {
  project_id: string;
  id: string;
  batch_id: string;
  request_hash: Buffer;
  name: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  occurred_at: Timestamp;
  received_at: Timestamp;
  volume_usd: Nullable<Decimal>;
  revenue_usd: Nullable<Decimal>;
  reward_base: Nullable<Money>;
  referral_code: Nullable<string>;
  status: ConversionStatus;
  processed_at: Nullable<Timestamp>;
  failure_reason: Nullable<string>;
  currency_id: Nullable<string>;
  affiliate_id: Nullable<string>;
  affiliate_identifier_type: Nullable<IdentifierType>;
  affiliate_identifier: Nullable<string>;
  master_id: Nullable<string>;
  master_identifier_type: Nullable<IdentifierType>;
  master_identifier: Nullable<string>;
  master_spread_bps: Nullable<number>;
  tier_id: Nullable<string>;
  /** Migration 0014, frozen when paid: the rebate rate of the referral's code (bps of the affiliate's reward); null: nobody attributed. */
  user_rebate_rate_bps: OptionalNullable<number>;
  /**
   * Migration 0008, frozen when paid: the allowlist audience each side was checked against and
   * whether it was a member (both null: its terms named none, or the side was not there).
   */
  end_user_allowlist_audience_id: OptionalNullable<string>;
  end_user_eligible: OptionalNullable<boolean>;
  affiliate_allowlist_audience_id: OptionalNullable<string>;
  affiliate_eligible: OptionalNullable<boolean>;
}

export interface ClaimCheckTable {
  id: Generated<string>;
  project_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  currency_id: string;
  reason: ClaimReason;
  status: ClaimCheckStatus;
  amount: Money;
  movements_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When the open check stopped taking movements and credits (the next would have taken it past 2^256 − 1); null while it takes them. */
  full_at: Nullable<Timestamp>;
  /** Migration 0012: what the user owes in this (currency, reason), on the open check that takes movements; paid first out of what it is added. */
  debt: ColumnType<bigint, bigint | undefined, bigint>;
}

export interface MovementTable {
  id: ColumnType<bigint, never, never>;
  project_id: string;
  conversion_id: string;
  kind: MovementKind;
  identifier_type: IdentifierType;
  identifier: string;
  currency_id: string;
  amount: Money;
  /** The check it is in: null while pending or declined (migration 0010); set once, when it becomes available. */
  claim_check_id: OptionalNullable<string>;
  created_at: Timestamp;
  /** Migration 0010: pending (in no check), available (in a check), declined. */
  status: ColumnType<MovementStatus, MovementStatus | undefined, MovementStatus>;
  /** Why it waits; null unless pending. */
  pending_reason: OptionalNullable<PendingReason>;
  /** When it becomes available (processing time + hold); null on rows written before migration 0010 (read as created_at). */
  available_at: ColumnType<Date | null, Date | undefined, Date | null>;
  decided_at: OptionalNullable<Date>;
  /** The API key id that approved or declined it. */
  decided_by: OptionalNullable<string>;
  decline_reason: OptionalNullable<string>;
  /** Migration 0013: what a cap cut from it (never paid), and the cap that cut it first; 0 and null when uncapped. */
  capped_amount: ColumnType<bigint, bigint | undefined, never>;
  capped_by: ColumnType<CapKind | null, CapKind | null | undefined, never>;
  /** Migration 0014: an end_user_payout that is the referring affiliate's rebate, taken from its affiliate_payout of the same conversion. */
  rebate: ColumnType<boolean, boolean | undefined, never>;
  /** Migration 0018: the referral level an affiliate_payout pays (1 the referring affiliate, 2..4 its upline); 1 on every other kind. */
  level: ColumnType<number, number | undefined, never>;
}

/** Migration 0017: a paid conversion's upline (levels 2..4), frozen with its attribution. */
export interface ConversionUplineTable {
  project_id: string;
  conversion_id: string;
  level: number;
  affiliate_id: string;
  identifier_type: IdentifierType;
  identifier: string;
}

export interface LeaderboardTotalTable {
  project_id: string;
  currency_id: string;
  user_type: LeaderboardUserType;
  identifier_type: IdentifierType;
  identifier: string;
  total_amount: Money;
  total_attributions: ColumnType<bigint, bigint, bigint>;
  updated_at: Timestamp;
}

/** Migration 0015: what each user earned on each UTC day (a movement's day is its created_at's), for boards over a date range. */
export interface LeaderboardDayTable {
  project_id: string;
  currency_id: string;
  user_type: LeaderboardUserType;
  /** A date: read as 'YYYY-MM-DD' text (services/platform/db/type-parsers.ts). */
  day: ColumnType<string, string, string>;
  identifier_type: IdentifierType;
  identifier: string;
  total_amount: Money;
  total_attributions: ColumnType<bigint, bigint, bigint>;
}

export interface LeaderboardSizeTable {
  project_id: string;
  currency_id: string;
  user_type: LeaderboardUserType;
  entries: ColumnType<bigint, bigint, bigint>;
}

export interface ClaimSettingsTable {
  project_id: string;
  project_address: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What a closed check was signed with (migration 0002): the voucher's struct, domain and fate on chain. */
export interface VoucherTable {
  claim_check_id: string;
  project_id: string;
  chain_id: ColumnType<bigint, bigint, bigint>;
  verifying_contract: string;
  domain_name: string;
  domain_version: string;
  project_address: string;
  to_address: string;
  currency_address: string;
  currency_type: number;
  amount: Money;
  reason: number;
  /** Unix seconds. */
  deadline: ColumnType<bigint, bigint, bigint>;
  proof: string;
  signatures: string[];
  closed_at: Timestamp;
  claimed_at: OptionalNullable<Date>;
  claim_tx_hash: OptionalNullable<string>;
  claim_block_number: OptionalNullable<bigint>;
  claim_log_index: OptionalNullable<number>;
  expired_at: OptionalNullable<Date>;
}

export interface ClaimCheckCreditTable {
  expired_check_id: string;
  project_id: string;
  open_check_id: string;
  amount: Money;
  created_at: Timestamp;
}

export interface ChainCursorTable {
  chain_id: ColumnType<bigint, bigint, bigint>;
  contract: string;
  last_block: ColumnType<bigint, bigint, bigint>;
  /** The hash of the chain's block 0 when the cursor was taken (null: taken before it was kept). */
  genesis_hash: OptionalNullable<string>;
  updated_at: Timestamp;
}

/** A user's points in the project's point currency (migration 0019): balance = credited − taken_back, never below zero. */
export interface PointBalanceTable {
  project_id: string;
  currency_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  balance: Money;
  credited: Money;
  taken_back: Money;
  updated_at: Timestamp;
}
