import type { ColumnType, Generated } from 'kysely';
import type { IdentifierType } from '../common/identifiers';
import type { AffiliateStatus } from './domain/vocabulary';

/** The agency schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface AgencyDatabase {
  affiliates: AffiliateTable;
  affiliate_suspensions: AffiliateSuspensionTable;
  affiliate_codes: AffiliateCodeTable;
  referrals: ReferralTable;
}

type Timestamp = Date;
type Nullable<T> = T | null;

/** One per user per project. */
export interface AffiliateTable {
  id: Generated<string>;
  project_id: string;
  /** Written only from a checked identifier (services/common/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  name: string;
  /** ISO 3166-1 alpha-2. */
  region: Nullable<string>;
  /** The current status; affiliate_suspensions holds every period, for attribution at past moments. */
  status: AffiliateStatus;
  joined_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * The status history: one row per suspension period, open (reactivated_at NULL) while it lasts. An
 * affiliate is suspended at moment t when a row has suspended_at <= t < reactivated_at (or is open).
 */
export interface AffiliateSuspensionTable {
  id: Generated<string>;
  affiliate_id: string;
  project_id: string;
  reason: string;
  suspended_at: Timestamp;
  suspended_by: Nullable<string>;
  reactivated_at: ColumnType<Nullable<Timestamp>, Nullable<Timestamp> | undefined, Nullable<Timestamp>>;
  reactivated_by: ColumnType<Nullable<string>, Nullable<string> | undefined, Nullable<string>>;
}

export interface AffiliateCodeTable {
  /** The order codes were added in (oldest first); int8, read as bigint. */
  id: Generated<bigint>;
  project_id: string;
  /** As registered; unique per project by lower(code). */
  code: string;
  affiliate_id: string;
  created_at: Timestamp;
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
