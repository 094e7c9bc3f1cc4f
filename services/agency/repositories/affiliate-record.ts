import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { AffiliateStatus } from '../domain/vocabulary';

/**
 * An affiliate as the repositories read it: what the affiliate repository writes and finds, and
 * what each row of the affiliate list (affiliate-list/) extends. Its own file so the list and the
 * repository that runs it share it without importing each other.
 */
export interface AffiliateCodeRecord {
  code: string;
  /** Users referred with it. */
  uses: bigint;
  createdAt: Date;
  /** The share of the affiliate's reward (basis points, 0..2000) that goes to users referred with it; null: none. */
  userRebateRateBps: number | null;
}

/** What a code brought (AffiliateRepository.codeStats), keyed by the code as registered. */
export interface AffiliateCodeStatsRecord {
  /** code_clicks rows of the code. */
  clicks: bigint;
  /** The affiliate's payouts through the code in whole units of each known currency, summed: a decimal string. */
  earnings: string;
}

export interface AffiliateRecord extends ProfileRecord {
  id: string;
  status: AffiliateStatus;
  /** Oldest first. */
  codes: AffiliateCodeRecord[];
  joinedAt: Date;
  updatedAt: Date;
  /** The open suspension, while suspended. */
  suspendedAt: Date | null;
  suspensionReason: string | null;
  /** The open flag period, while flagged. */
  flaggedAt: Date | null;
  flagReason: string | null;
}

/** What an affiliate and an application both keep of their user (an approved application's become its affiliate's). */
export interface ProfileRecord {
  projectId: string;
  user: UserIdentifier;
  name: string;
  region: string | null;
}

/** The columns of an affiliates or applications row that hold its profile. */
interface ProfileRow {
  project_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  name: string;
  region: string | null;
}

/** A profile as the columns of an affiliates or applications row. */
export function profileColumns(profile: ProfileRecord): ProfileRow {
  return {
    project_id: profile.projectId,
    identifier_type: profile.user.identifierType,
    identifier: profile.user.identifier,
    name: profile.name,
    region: profile.region,
  };
}

/** The profile an affiliates or applications row holds. */
export function profileOf(row: ProfileRow): ProfileRecord {
  return { projectId: row.project_id, user: { identifier: row.identifier, identifierType: row.identifier_type }, name: row.name, region: row.region };
}

/** The columns of an affiliate's row, with its open suspension's and flag's, that its record is read from. */
export interface AffiliateRow extends ProfileRow {
  id: string;
  status: AffiliateStatus;
  joined_at: Date;
  updated_at: Date;
  suspended_at: Date | null;
  suspension_reason: string | null;
  flagged_at: Date | null;
  flag_reason: string | null;
}

/** The record of an affiliate's row and its codes (oldest first); a suspension or a flag shows only while the affiliate is suspended or flagged. */
export function toAffiliateRecord(row: AffiliateRow, codes: AffiliateCodeRecord[]): AffiliateRecord {
  const suspended = row.status === 'suspended';
  const flagged = row.status === 'flagged';
  // Added to the profile's new object, not spread into another (a spread followed by more properties
  // takes V8's slow path): every row of every affiliate list page comes through here.
  return Object.assign(profileOf(row), {
    id: row.id,
    status: row.status,
    codes,
    joinedAt: row.joined_at,
    updatedAt: row.updated_at,
    suspendedAt: suspended ? row.suspended_at : null,
    suspensionReason: suspended ? row.suspension_reason : null,
    flaggedAt: flagged ? row.flagged_at : null,
    flagReason: flagged ? row.flag_reason : null,
  });
}

/** An affiliate as the lists of masters and of a master's sub-affiliates name it. */
export interface AffiliateSummaryRecord {
  id: string;
  user: UserIdentifier;
  name: string;
  status: AffiliateStatus;
}

/** The columns of `affiliates as a` that an affiliate's summary is read from (toAffiliateSummary). */
export const AFFILIATE_SUMMARY_COLUMNS = ['a.id', 'a.identifier', 'a.identifier_type', 'a.name', 'a.status'] as const;

export function toAffiliateSummary(row: Pick<AffiliateRow, 'id' | 'identifier' | 'identifier_type' | 'name' | 'status'>): AffiliateSummaryRecord {
  return { id: row.id, user: { identifier: row.identifier, identifierType: row.identifier_type }, name: row.name, status: row.status };
}
