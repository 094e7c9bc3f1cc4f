import type { UserIdentifier } from '../../rules/identifiers';
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
