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
}

export interface AffiliateRecord {
  id: string;
  projectId: string;
  user: UserIdentifier;
  name: string;
  region: string | null;
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

/** The columns of an affiliate's row, with its open suspension's and flag's, that its record is read from. */
export interface AffiliateRow {
  id: string;
  project_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  name: string;
  region: string | null;
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
  return {
    id: row.id,
    projectId: row.project_id,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    name: row.name,
    region: row.region,
    status: row.status,
    codes,
    joinedAt: row.joined_at,
    updatedAt: row.updated_at,
    suspendedAt: suspended ? row.suspended_at : null,
    suspensionReason: suspended ? row.suspension_reason : null,
    flaggedAt: flagged ? row.flagged_at : null,
    flagReason: flagged ? row.flag_reason : null,
  };
}
