import type { ColumnType, Generated } from 'kysely';
import type { IdentifierType } from '../rules/identifiers';
import type { OutboxTables } from '../platform/outbox/tables';
import type { TaxRecordStatus } from '../rules/tax-status-rule';
import type { AffiliateStatus, ApplicationStatus, AttributionModel } from './domain/vocabulary';
import type { Nullable, OptionalNullable, Timestamp } from '../platform/db/column-types';

/** The agency schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface AgencyDatabase extends AgencyProgramTables, AffiliateMetricsTables, TrackingTables, OutboxTables {
  affiliates: AffiliateTable;
  affiliate_suspensions: AffiliateSuspensionTable;
  affiliate_flags: AffiliateFlagTable;
  affiliate_codes: AffiliateCodeTable;
  referrals: ReferralTable;
  invite_codes: InviteCodeTable;
  ended_referrals: EndedReferralTable;
  tax_statuses: TaxStatusTable;
  tax_requirements: TaxRequirementTable;
}

/** What an affiliate and an application both keep of their user (an approved application's become its affiliate's). */
interface ProfileColumns {
  id: Generated<string>;
  project_id: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  name: string;
  /** ISO 3166-1 alpha-2. */
  region: Nullable<string>;
}

/** One per user per project. */
export interface AffiliateTable extends ProfileColumns {
  /** The current status; affiliate_suspensions holds every suspension period, for attribution at past moments, and affiliate_flags every flag period. */
  status: AffiliateStatus;
  joined_at: Timestamp;
  updated_at: Timestamp;
}

/** What a period of an affiliate's status (a suspension, a flag) holds besides its start and its end. */
interface AffiliateStatusPeriod {
  id: Generated<string>;
  affiliate_id: string;
  project_id: string;
  reason: string;
}

/**
 * The status history: one row per suspension period, open (reactivated_at NULL) while it lasts. An
 * affiliate is suspended at moment t when a row has suspended_at <= t < reactivated_at (or is open).
 */
export interface AffiliateSuspensionTable extends AffiliateStatusPeriod {
  suspended_at: Timestamp;
  suspended_by: Nullable<string>;
  reactivated_at: OptionalNullable<Timestamp>;
  reactivated_by: OptionalNullable<string>;
}

/** Flag periods (migration 0018), as affiliate_suspensions: one row per period, open (unflagged_at NULL) while flagged. */
export interface AffiliateFlagTable extends AffiliateStatusPeriod {
  flagged_at: Timestamp;
  flagged_by: Nullable<string>;
  unflagged_at: OptionalNullable<Timestamp>;
  unflagged_by: OptionalNullable<string>;
}

export interface AffiliateCodeTable {
  /** The order codes were added in (oldest first); int8, read as bigint. */
  id: Generated<bigint>;
  project_id: string;
  /** As registered; unique per project by lower(code). */
  code: string;
  affiliate_id: string;
  created_at: Timestamp;
  /** The share (bps of the affiliate's reward, 0..2000) that goes to users referred through the code; null: none. */
  user_rebate_rate_bps: OptionalNullable<number>;
}

/** Who referred whom: one row per referred user per project, written once (the first referral wins). */
export interface ReferralTable {
  project_id: string;
  /** The referred user. Written only from a checked identifier. */
  identifier_type: IdentifierType;
  identifier: string;
  affiliate_id: string;
  /** The code used, as its affiliate registered it. */
  code: string;
  referred_at: Timestamp;
}

/**
 * Codes generated for an affiliate (migration 0022, the SDK's `/referral_codes`): unique in the project with
 * the affiliate codes whatever the letter case; `uses` counted by a conditional UPDATE.
 */
export interface InviteCodeTable {
  project_id: string;
  code: string;
  affiliate_id: string;
  /** null: unlimited; 0: disabled. */
  max_uses: Nullable<number>;
  uses: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A referral ended by its user or an admin (migration 0022): the row it was, with who ended it and when. */
export interface EndedReferralTable extends ReferralTable {
  id: Generated<bigint>;
  ended_at: Timestamp;
  ended_by: 'user' | 'admin';
  actor_api_key_id: Nullable<string>;
}

/** The tables of masters, sub-affiliates, tier protection and applications (migration 0002). */
export interface AgencyProgramTables {
  agency_designations: AgencyDesignationTable;
  agency_spreads: AgencySpreadTable;
  sub_affiliate_bindings: SubAffiliateBindingTable;
  tier_protections: TierProtectionTable;
  applications: ApplicationTable;
  audience_memberships: AudienceMembershipTable;
  deleted_segments: DeletedSegmentTable;
  segment_tiers: SegmentTierTable;
  program_settings: ProgramSettingsTable;
}

/** A project's affiliate program settings (migration 0016): the parts of its referral links. */
export interface ProgramSettingsTable {
  project_id: string;
  program_url: Nullable<string>;
  /** Null: the default template. */
  link_template: Nullable<string>;
  updated_at: Timestamp;
  updated_by: Nullable<string>;
  /** How far back a click counts for a connect_wallet (migration 0021; 1..365, default 30). */
  attribution_window_days: ColumnType<number, number | undefined, number>;
  attribution_model: ColumnType<AttributionModel, AttributionModel | undefined, AttributionModel>;
}

/** One period of master status; open (removed_at NULL) while it lasts. */
export interface AgencyDesignationTable {
  id: Generated<string>;
  project_id: string;
  affiliate_id: string;
  designated_at: Timestamp;
  designated_by: Nullable<string>;
  removed_at: OptionalNullable<Timestamp>;
  removed_by: OptionalNullable<string>;
}

/** A master's spread over [valid_from, valid_to). */
export interface AgencySpreadTable {
  id: Generated<string>;
  designation_id: string;
  master_id: string;
  spread_bps: number;
  valid_from: Timestamp;
  valid_to: OptionalNullable<Timestamp>;
  set_by: Nullable<string>;
}

/** A sub-affiliate bound to a master over [bound_from, bound_to). */
export interface SubAffiliateBindingTable {
  id: Generated<string>;
  project_id: string;
  designation_id: string;
  master_id: string;
  affiliate_id: string;
  bound_from: Timestamp;
  bound_to: OptionalNullable<Timestamp>;
  bound_by: Nullable<string>;
  unbound_by: OptionalNullable<string>;
  /** The designation that closed it: its affiliate was made a master (migration 0015). */
  ended_by_designation_id: OptionalNullable<string>;
}

/** A tier protection, in force over [starts_at, least(expires_at, ended_at)). */
export interface TierProtectionTable {
  id: Generated<string>;
  project_id: string;
  affiliate_id: string;
  /** An audience segment that carries a tier rank. */
  tier_id: string;
  starts_at: Timestamp;
  expires_at: Timestamp;
  set_by: Nullable<string>;
  ended_at: OptionalNullable<Timestamp>;
  ended_by: OptionalNullable<string>;
}

/** An affiliate application (specification §2.10, §3.2). */
export interface ApplicationTable extends ProfileColumns {
  message: Nullable<string>;
  /** The code the applicant would like. */
  code: Nullable<string>;
  status: ApplicationStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  hold_note: OptionalNullable<string>;
  held_at: OptionalNullable<Timestamp>;
  held_by: OptionalNullable<string>;
  decided_at: OptionalNullable<Timestamp>;
  decided_by: OptionalNullable<string>;
  rejection_reason: OptionalNullable<string>;
  /** The static segment an approval added the user to. */
  audience_id: OptionalNullable<string>;
  affiliate_id: OptionalNullable<string>;
  /** The desired code, when the approval could give it (it was free). */
  granted_code: OptionalNullable<string>;
}

/** The projection of audience entries (fed by the audience service's events): one user's entry of one kind in one segment. */
export interface AudienceMembershipTable {
  project_id: string;
  segment_id: string;
  identifier_type: string;
  identifier: string;
  kind: 'static' | 'dynamic';
  /** False once removed (kept, so an older event arriving late does not bring it back). */
  present: boolean;
  /** When the audience service wrote the event that set `present`. */
  changed_at: Timestamp;
}

/** Segments the audience service deleted: their late entry events change nothing. */
export interface DeletedSegmentTable {
  segment_id: string;
  project_id: string;
  deleted_at: Timestamp;
}

/** What the audience service last said of a segment's tier (migration 0010): the tier projection. */
export interface SegmentTierTable {
  segment_id: string;
  project_id: string;
  name: string;
  /** Null: the segment is no tier (cleared, or deleted). */
  tier_rank: number | null;
  /** The segment was deleted: final, whatever arrives later. */
  deleted: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the audience service wrote the event that set this state. */
  changed_at: Timestamp;
}

/** What the tax service last said of a user's current tax record (migration 0011): the tax status projection. */
export interface TaxStatusTable {
  project_id: string;
  identifier_type: string;
  identifier: string;
  status: TaxRecordStatus;
  expires_at: Timestamp | null;
  /** The tax service's order of the user's changes: a lower one never overwrites a higher one. */
  version: bigint;
}

/** What the tax service last said of a project's settings (migration 0011). */
export interface TaxRequirementTable {
  project_id: string;
  require_tax_info: boolean;
  version: bigint;
}

/** The affiliate metrics projection (migration 0005): facts of paid conversions and their aggregates. */
export interface AffiliateMetricsTables {
  metric_currencies: MetricCurrencyTable;
  conversion_facts: ConversionFactTable;
  conversion_fact_reversals: ConversionFactReversalTable;
  conversion_fact_levels: ConversionFactLevelTable;
  affiliate_metrics: AffiliateMetricsTable;
  affiliate_conversion_counts: AffiliateConversionCountTable;
  affiliate_earnings: AffiliateEarningTable;
  referred_user_metrics: ReferredUserMetricsTable;
  sub_affiliate_metrics: SubAffiliateMetricsTable;
  affiliate_counts: AffiliateCountTable;
  affiliate_filter_entries: AffiliateFilterEntryTable;
  affiliate_filter_counts: AffiliateFilterCountTable;
  affiliate_region_counts: AffiliateRegionCountTable;
  affiliate_board_sizes: AffiliateBoardSizeTable;
}

/** Affiliates on each of a project's affiliate boards, their figure above zero (migration 0025, kept by the trigger affiliate_board_sizes_track). */
export interface AffiliateBoardSizeTable {
  project_id: string;
  metric: 'referred_users' | 'revenue' | 'volume';
  entries: Count;
}

/** Affiliates per project, status and region (kept by the trigger affiliate_region_counts_track). */
export interface AffiliateRegionCountTable {
  project_id: string;
  status: AffiliateStatus;
  region: string | null;
  affiliates: Count;
}

/**
 * One row per affiliate and list filter value it matches (migration 0008, kept by triggers): a
 * segment it is a member of, or a conversion name it has, with copies of its sort keys, status and region.
 */
export interface AffiliateFilterEntryTable {
  affiliate_id: string;
  kind: 'audience' | 'conversion';
  /** The segment id, or the conversion name. */
  value: string;
  project_id: string;
  status: AffiliateStatus;
  region: string | null;
  joined_at: Timestamp;
  volume_usd: Usd;
  revenue_usd: Usd;
  conversions: Count;
  end_users: Count;
  referred_volume_usd: Usd;
  /** A copy of the metrics row's clicks (migration 0023). */
  clicks: ColumnType<bigint, never, never>;
}

/** affiliate_filter_entries counted per filter value, status and region (kept by a trigger): the list's totals. */
export interface AffiliateFilterCountTable {
  project_id: string;
  kind: 'audience' | 'conversion';
  value: string;
  status: AffiliateStatus;
  region: string | null;
  affiliates: Count;
}

/** Affiliates per project and status (kept by the trigger affiliate_counts_track). */
export interface AffiliateCountTable {
  project_id: string;
  status: AffiliateStatus;
  affiliates: Count;
}

/** A USD figure (fractional NUMERIC): select it cast to text (services/platform/db/type-parsers.ts), an exact decimal string. */
type Usd = ColumnType<string, string, string>;
/** Integer base units, read as bigint: NUMERIC(78,0) for one amount, whole NUMERIC for a running sum of them. */
type Money = ColumnType<bigint, string | bigint, string | bigint>;
/** int8, read as bigint. */
type Count = ColumnType<bigint, number | bigint, number | bigint>;

export interface MetricCurrencyTable {
  id: string;
  project_id: string;
  chain_id: ColumnType<bigint, string | bigint, string | bigint>;
  address: string;
  name: string;
  decimals: number;
}

/** One conversion as the claim service paid it: attribution frozen, payouts to the affiliate and its master. */
export interface ConversionFactTable {
  project_id: string;
  conversion_id: string;
  name: string;
  status: 'processed' | 'no_terms';
  occurred_at: Timestamp;
  identifier_type: string;
  identifier: string;
  affiliate_id: Nullable<string>;
  master_id: Nullable<string>;
  spread_bps: Nullable<number>;
  tier_id: Nullable<string>;
  volume_usd: Nullable<string>;
  revenue_usd: Nullable<string>;
  currency_id: Nullable<string>;
  affiliate_payout: Money;
  agency_payout: Money;
  recorded_at: Timestamp;
  /** Basis points of the conversion its reversals took back; its figures above are net of them (migration 0019). */
  reversed_bps: Generated<number>;
}

/** An upper referral level (2..4) of a fact: its affiliate and what it was paid, net of reversals (migration 0024). */
export interface ConversionFactLevelTable {
  project_id: string;
  conversion_id: string;
  level: number;
  affiliate_id: string;
  occurred_at: Timestamp;
  payout: Money;
}

/** A reversal the metrics applied to a fact, with what it took back (migration 0019). */
export interface ConversionFactReversalTable {
  project_id: string;
  reversal_id: string;
  conversion_id: string;
  share_bps: number;
  volume_usd: Nullable<string>;
  revenue_usd: Nullable<string>;
  affiliate_payout: Money;
  agency_payout: Money;
  recorded_at: Timestamp;
}

export interface AffiliateMetricsTable {
  affiliate_id: string;
  project_id: string;
  volume_usd: Usd;
  revenue_usd: Usd;
  conversions: Count;
  /** Every user it referred (referrals), converted or not (migration 0014). */
  end_users: Count;
  /** The users it referred with at least one conversion attributed to it. */
  converting_users: Count;
  referred_volume_usd: Usd;
  updated_at: Timestamp;
  /** Its codes' code_clicks rows, all time, kept by a trigger on code_clicks (migration 0023). */
  clicks: ColumnType<bigint, never, never>;
  /** Copies of the affiliate's, kept by triggers (migration 0007): the list filters a metric's index by them. */
  status: ColumnType<AffiliateStatus, never, never>;
  region: ColumnType<string | null, never, never>;
}

export interface AffiliateConversionCountTable {
  affiliate_id: string;
  name: string;
  project_id: string;
  conversions: Count;
}

export interface AffiliateEarningTable {
  affiliate_id: string;
  kind: 'affiliate' | 'agency';
  currency_id: string;
  project_id: string;
  /** A running sum of payouts: plain NUMERIC (whole), so it may pass 2^256 − 1 (migration 0017). */
  amount: Money;
}

export interface ReferredUserMetricsTable {
  affiliate_id: string;
  identifier_type: string;
  identifier: string;
  project_id: string;
  volume_usd: Usd;
  revenue_usd: Usd;
  conversions: Count;
  first_conversion_at: Timestamp;
  last_conversion_at: Timestamp;
}

export interface SubAffiliateMetricsTable {
  master_id: string;
  affiliate_id: string;
  project_id: string;
  volume_usd: Usd;
  revenue_usd: Usd;
  conversions: Count;
}

/** Tracking events and what the agency derives from them (migration 0020_tracking_events). */
export interface TrackingTables {
  tracking_event_batches: TrackingEventBatchTable;
  tracking_events: TrackingEventTable;
  tracking_event_dedup: TrackingEventDedupTable;
  tracking_event_outcomes: TrackingEventOutcomeTable;
  code_clicks: CodeClickTable;
  tracking_links: TrackingLinkTable;
}

/** One accepted request of events: the durable job its processing works from. */
export interface TrackingEventBatchTable {
  id: string;
  project_id: string;
  received_at: Timestamp;
  event_count: number;
  processed_at: OptionalNullable<Timestamp>;
  /** Set when the batch was given up (its job kept failing; migration 0021), with the reason. */
  failed_at: OptionalNullable<Timestamp>;
  failure: OptionalNullable<string>;
}

/** One event as received (append-only; partitioned by month of received_at). */
export interface TrackingEventTable {
  id: string;
  project_id: string;
  batch_id: string;
  received_at: Timestamp;
  name: string;
  tracking_id: string;
  identifier_type: Nullable<IdentifierType>;
  identifier: Nullable<string>;
  signature_verified: ColumnType<boolean, boolean | undefined, never>;
  /** metadata.referrer (or affiliate_id): the code a pageview came through, as sent. */
  referrer: Nullable<string>;
  dedup_id: Nullable<string>;
  args: ColumnType<unknown, string | undefined, never>;
  metadata: ColumnType<unknown, string | undefined, never>;
}

export interface TrackingEventDedupTable {
  project_id: string;
  dedup_id: string;
  event_id: string;
  received_at: Timestamp;
}

/** What processing decided for an event that could attribute. */
export interface TrackingEventOutcomeTable {
  project_id: string;
  event_id: string;
  outcome: string;
  affiliate_id: Nullable<string>;
  code: Nullable<string>;
  decided_at: Timestamp;
}

/** One click per code (lower-cased), tracking id and UTC day. */
export interface CodeClickTable {
  project_id: string;
  code: string;
  tracking_id: string;
  day: ColumnType<string, string, never>;
  first_at: Timestamp;
}

/** The wallet a tracking id connected (first verified connect_wallet). */
export interface TrackingLinkTable {
  project_id: string;
  tracking_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  linked_at: Timestamp;
}
