import type { ColumnType } from 'kysely';
import type { ReversedFrom } from './domain/vocabulary';

/** The reversals' tables (migration 0012; docs/claims.md#reversals), part of ClaimDatabase. Append-only. */
export interface ReversalTables {
  conversion_reversals: ConversionReversalTable;
  movement_reversals: MovementReversalTable;
}

/** One reversal of a conversion: the caller's id, the share taken back, and the share of volume and revenue. */
export interface ConversionReversalTable {
  project_id: string;
  reversal_id: string;
  conversion_id: string;
  share_bps: number;
  reason: string;
  /** Fractional NUMERIC: written as a decimal string, read as text. */
  volume_usd: ColumnType<string | null, string | null, string | null>;
  revenue_usd: ColumnType<string | null, string | null, string | null>;
  /** The API key that reversed it. */
  reversed_by: string;
  created_at: Date;
}

/** What one reversal took from one movement: out of pending, or out of its open check and the rest as debt. */
export interface MovementReversalTable {
  id: ColumnType<bigint, never, never>;
  project_id: string;
  reversal_id: string;
  movement_id: ColumnType<bigint, bigint | string, never>;
  amount: ColumnType<bigint, bigint, never>;
  was: ReversedFrom;
  claim_check_id: string | null;
  from_check: ColumnType<bigint, bigint, never>;
  to_debt: ColumnType<bigint, bigint, never>;
  /** Of an available point movement: what came out of the user's points balance (migration 0020); 0 otherwise. */
  from_points: ColumnType<bigint, bigint | undefined, never>;
  created_at: Date;
}
