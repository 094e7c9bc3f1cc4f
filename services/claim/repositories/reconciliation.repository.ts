import { type Kysely, sql } from 'kysely';
import type { ClaimDatabase } from '../database';
import type { CurrencyType, MovementKind } from '../domain/vocabulary';
import type { CurrencySummary } from './movement.repository';

/** What the ledger holds for one (currency, kind): sums of base units, as read in one snapshot. */
export interface LedgerFigures {
  currency: CurrencySummary;
  kind: MovementKind;
  /** Every movement, what its terms' caps cut from it included. */
  earned: bigint;
  /** What caps cut from movements (never paid). */
  capped: bigint;
  /** What reversals took back (migration 0012). */
  reversed: bigint;
  /** Movements by status, net of their reversals. */
  declined: bigint;
  pending: bigint;
  available: bigint;
  /** Claim checks of the kind's reason, by status (their amounts: movements and credits). */
  inOpenChecks: bigint;
  inClosedChecks: bigint;
  claimed: bigint;
  expired: bigint;
  /** Credits: what expired checks gave back to open checks (claim_check_credits). */
  creditedBack: bigint;
  /** What users owe after reversals of amounts a voucher carried (open checks' debt). */
  debt: bigint;
  /**
   * A point currency's: the sum of its users' points balances (migration 0019), the same on each of
   * its kinds' lines (a balance is per user, not per kind); 0 for a chain currency.
   */
  pointBalances: bigint;
}

interface FiguresRow {
  currency_id: string;
  chain_id: string | null;
  address: string | null;
  name: string;
  decimals: number;
  type: CurrencyType;
  kind: MovementKind;
  earned: string;
  capped: string;
  reversed: string;
  declined: string;
  pending: string;
  available: string;
  in_open_checks: string;
  in_closed_checks: string;
  claimed: string;
  expired: string;
  credited_back: string;
  debt: string;
  point_balances: string;
}

/**
 * The reconciliation's read: movements by status, claim checks by status and credits, per currency of
 * the project (or the one named) and kind, in ONE statement. One statement reads one snapshot, so
 * the figures are those of one instant: a payment, release, close, claim or expiry committed
 * while it runs is seen whole or not at all, never half.
 */
export class ReconciliationRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** Three rows (affiliate, end user, agency payouts) per currency, currencies in creation order; none when the currency is not the project's. */
  async figures(projectId: string, currencyId: string | undefined): Promise<LedgerFigures[]> {
    const only = (column: string) => (currencyId === undefined ? sql`` : sql`AND ${sql.ref(column)} = ${currencyId}::uuid`);
    const { rows } = await sql<FiguresRow>`
      WITH project_currencies AS (
        SELECT id, chain_id, address, name, decimals, type, created_at FROM currencies
        WHERE project_id = ${projectId}::uuid ${only('id')}
      ),
      kinds (kind, reason, position) AS (
        VALUES ('affiliate_payout', 'affiliate', 1), ('end_user_payout', 'end_user', 2), ('agency_payout', 'agency', 3)
      ),
      reversal_sums AS (
        SELECT movement_id, sum(amount) AS reversed
        FROM movement_reversals
        WHERE project_id = ${projectId}::uuid
        GROUP BY movement_id
      ),
      movement_sums AS (
        SELECT m.currency_id, m.kind,
          sum(m.amount + m.capped_amount) AS earned,
          sum(m.capped_amount) AS capped,
          sum(r.reversed) AS reversed,
          sum(m.amount - coalesce(r.reversed, 0)) FILTER (WHERE m.status = 'declined') AS declined,
          sum(m.amount - coalesce(r.reversed, 0)) FILTER (WHERE m.status = 'pending') AS pending,
          sum(m.amount - coalesce(r.reversed, 0)) FILTER (WHERE m.status = 'available') AS available
        FROM movements m LEFT JOIN reversal_sums r ON r.movement_id = m.id
        WHERE m.project_id = ${projectId}::uuid ${only('m.currency_id')}
        GROUP BY m.currency_id, m.kind
      ),
      check_sums AS (
        SELECT currency_id, reason,
          sum(amount) FILTER (WHERE status = 'open') AS in_open_checks,
          sum(amount) FILTER (WHERE status = 'closed') AS in_closed_checks,
          sum(amount) FILTER (WHERE status = 'claimed') AS claimed,
          sum(amount) FILTER (WHERE status = 'expired') AS expired,
          sum(debt) AS debt
        FROM claim_checks
        WHERE project_id = ${projectId}::uuid ${only('currency_id')}
        GROUP BY currency_id, reason
      ),
      credit_sums AS (
        SELECT expired_check.currency_id, expired_check.reason, sum(credit.amount) AS credited_back
        FROM claim_check_credits credit
        JOIN claim_checks expired_check ON expired_check.id = credit.expired_check_id
        WHERE credit.project_id = ${projectId}::uuid ${only('expired_check.currency_id')}
        GROUP BY expired_check.currency_id, expired_check.reason
      ),
      point_sums AS (
        SELECT currency_id, sum(balance) AS point_balances
        FROM point_balances
        WHERE project_id = ${projectId}::uuid ${only('currency_id')}
        GROUP BY currency_id
      )
      SELECT
        c.id AS currency_id, c.chain_id::text AS chain_id, c.address, c.name, c.decimals, c.type, k.kind,
        coalesce(m.earned, 0)::text AS earned,
        coalesce(m.capped, 0)::text AS capped,
        coalesce(m.reversed, 0)::text AS reversed,
        coalesce(m.declined, 0)::text AS declined,
        coalesce(m.pending, 0)::text AS pending,
        coalesce(m.available, 0)::text AS available,
        coalesce(ch.in_open_checks, 0)::text AS in_open_checks,
        coalesce(ch.in_closed_checks, 0)::text AS in_closed_checks,
        coalesce(ch.claimed, 0)::text AS claimed,
        coalesce(ch.expired, 0)::text AS expired,
        coalesce(cr.credited_back, 0)::text AS credited_back,
        coalesce(ch.debt, 0)::text AS debt,
        coalesce(p.point_balances, 0)::text AS point_balances
      FROM project_currencies c
      CROSS JOIN kinds k
      LEFT JOIN movement_sums m ON m.currency_id = c.id AND m.kind = k.kind
      LEFT JOIN check_sums ch ON ch.currency_id = c.id AND ch.reason = k.reason
      LEFT JOIN credit_sums cr ON cr.currency_id = c.id AND cr.reason = k.reason
      LEFT JOIN point_sums p ON p.currency_id = c.id
      ORDER BY c.created_at, c.id, k.position`.execute(this.db);
    return rows.map((row) => ({
      currency: {
        id: row.currency_id,
        chainId: row.chain_id === null ? null : BigInt(row.chain_id),
        address: row.address,
        name: row.name,
        decimals: row.decimals,
        type: row.type,
      },
      kind: row.kind,
      earned: BigInt(row.earned),
      capped: BigInt(row.capped),
      reversed: BigInt(row.reversed),
      declined: BigInt(row.declined),
      pending: BigInt(row.pending),
      available: BigInt(row.available),
      inOpenChecks: BigInt(row.in_open_checks),
      inClosedChecks: BigInt(row.in_closed_checks),
      claimed: BigInt(row.claimed),
      expired: BigInt(row.expired),
      creditedBack: BigInt(row.credited_back),
      debt: BigInt(row.debt),
      pointBalances: BigInt(row.point_balances),
    }));
  }
}
