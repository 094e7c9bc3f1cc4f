import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { ClaimRow } from '../../../services/claim/domain/claim-check.service';
import type { ClaimHarness } from '../../helpers/claim-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { conversion, newAffiliate, refer, termsInput } from './fixtures';

/** Claim checks in the medium tier: projects set up for claims, paying conversions, and the (fake) tax service's side of the gate. */

/** A user as the domain and the services take it. */
export interface User {
  identifier: string;
  identifierType: string;
}

export const PROJECT_ADDRESS = '0x00000000000000000000000000000000000000aa';

/**
 * A project paying in one ERC-20 on `chainId`, set up for claims: `trade` conversions pay the end
 * user 1% and the referring affiliate 10% of reward_base.
 */
export async function claimProject(harness: ClaimHarness, chainId = 8453, tokenAddress: string = randomEvmAddress()) {
  const projectId = randomUUID();
  const currency = await harness.domain.currencies.create(projectId, {
    chainId: String(chainId),
    address: tokenAddress,
    name: 'USDC',
    decimals: 6,
    type: 'erc20',
  });
  await harness.domain.terms.put(projectId, 'trade', termsInput(currency.id, { endUser: { bps: 100 }, affiliate: { bps: 1_000 } }));
  await harness.domain.claimSettings.put(projectId, PROJECT_ADDRESS);
  return { projectId, currencyId: currency.id, currency };
}

/** An affiliate and a user it referred; a `trade` of the user with this reward_base pays both. */
export function referredPair(harness: ClaimHarness, projectId: string) {
  const affiliate = newAffiliate(harness, projectId);
  const user: User = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
  refer(harness, projectId, user, affiliate.code);
  return { affiliate: affiliate.user, user };
}

export const trade = (user: User, rewardBase: bigint | number) => conversion({ user, rewardBase: String(rewardBase) });

/** The open check of the user for a reason (throws when there is none). */
export async function openCheck(harness: ClaimHarness, projectId: string, user: User, reason: string): Promise<{ id: string; amount: bigint }> {
  const { rows } = await harness.sql.query<{ id: string; amount: string }>(
    "SELECT id, amount::text FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND reason = $3 AND status = 'open'",
    [projectId, user.identifier, reason],
  );
  if (!rows[0]) throw new Error(`no open ${reason} check for ${user.identifier}`);
  return { id: rows[0].id, amount: BigInt(rows[0].amount) };
}

// ------------------------------------------------------------------ the tax service's side of the gate (the fake's)

export function requireTaxInfo(harness: ClaimHarness, projectId: string): void {
  harness.taxStatuses.requireTaxInfo(projectId);
}

/** The user's tax form submitted, waiting for review. */
export function submitTaxForm(harness: ClaimHarness, projectId: string, user: User): void {
  harness.taxStatuses.submit(projectId, user);
}

/** Approves the user's form until `expiresAt` (a W-8's; null for a W-9). */
export function approveTaxForm(harness: ClaimHarness, projectId: string, user: User, expiresAt: Date | null): void {
  harness.taxStatuses.approve(projectId, user, expiresAt);
}

// ------------------------------------------------------------------ the sums that must hold

export interface Reconciliation {
  identifier: string;
  currency_id: string;
  /** Available movements, net of what reversals took from them: the only ones in checks. */
  movements: string;
  pending: string;
  declined: string;
  /** Movements whose status and check disagree (available in none, or pending or declined in one): always 0. */
  misplaced: string;
  open: string;
  closed: string;
  claimed: string;
  expired: string;
  credited: string;
  /** What the user owes after reversals of amounts a voucher already carried (carried on an open check). */
  debt: string;
}

/**
 * Per user and currency of a project: the movements by status (net of their reversals), the checks by
 * status, their debt and what was credited back. Available movements + debt = open + closed + claimed
 * (credits included), pending and declined movements are in no check, and expired = credited.
 */
export async function reconciliation(harness: ClaimHarness, projectId: string): Promise<Reconciliation[]> {
  const { rows } = await harness.sql.query<Reconciliation>(
    `WITH m AS (
       SELECT identifier, currency_id, sum(net) FILTER (WHERE status = 'available') AS amount,
              sum(net) FILTER (WHERE status = 'pending') AS pending, sum(net) FILTER (WHERE status = 'declined') AS declined,
              count(*) FILTER (WHERE (status = 'available') <> (claim_check_id IS NOT NULL)) AS misplaced
       FROM (SELECT mv.*, mv.amount - coalesce((SELECT sum(r.amount) FROM claim.movement_reversals r WHERE r.movement_id = mv.id), 0) AS net
             FROM claim.movements mv WHERE mv.project_id = $1) AS movements
       GROUP BY 1, 2
     ), c AS (
       SELECT identifier, currency_id,
              sum(amount) FILTER (WHERE status = 'open') AS open, sum(amount) FILTER (WHERE status = 'closed') AS closed,
              sum(amount) FILTER (WHERE status = 'claimed') AS claimed, sum(amount) FILTER (WHERE status = 'expired') AS expired,
              sum(debt) AS debt
       FROM claim.claim_checks WHERE project_id = $1 GROUP BY 1, 2
     ), k AS (
       SELECT cc.identifier, cc.currency_id, sum(k.amount) AS amount
       FROM claim.claim_check_credits k JOIN claim.claim_checks cc ON cc.id = k.expired_check_id WHERE k.project_id = $1 GROUP BY 1, 2
     )
     SELECT coalesce(m.identifier, c.identifier) AS identifier, coalesce(m.currency_id, c.currency_id) AS currency_id,
            coalesce(m.amount, 0)::text AS movements, coalesce(m.pending, 0)::text AS pending, coalesce(m.declined, 0)::text AS declined,
            coalesce(m.misplaced, 0)::text AS misplaced, coalesce(c.open, 0)::text AS open, coalesce(c.closed, 0)::text AS closed,
            coalesce(c.claimed, 0)::text AS claimed, coalesce(c.expired, 0)::text AS expired, coalesce(k.amount, 0)::text AS credited,
            coalesce(c.debt, 0)::text AS debt
     FROM m FULL JOIN c USING (identifier, currency_id) LEFT JOIN k USING (identifier, currency_id)
     ORDER BY 1, 2`,
    [projectId],
  );
  return rows;
}

/** Rows where the sums do not hold (empty when they all do). */
export function unbalanced(rows: Reconciliation[]): Reconciliation[] {
  return rows.filter((row) => {
    const [movements, open, closed, claimed, expired, credited, debt] = [
      row.movements,
      row.open,
      row.closed,
      row.claimed,
      row.expired,
      row.credited,
      row.debt,
    ].map(BigInt);
    return movements! + debt! !== open! + closed! + claimed! || expired !== credited || row.misplaced !== '0';
  });
}

/** A voucher row as ClaimManager.claim takes it. */
export function claimArgument(row: ClaimRow) {
  if (!row.signed) throw new Error(`claim check ${row.claimCheckId} is restricted: ${row.restriction}`);
  return {
    projectAddress: row.projectAddress as Address,
    to: row.to as Address,
    currency: row.currency as Address,
    currencyType: row.currencyType,
    amount: row.amount,
    reason: row.reason,
    tokenId: row.tokenId,
    deadline: row.signed.deadline,
    proof: row.signed.proof as Hex,
    signatures: row.signed.signatures as Hex[],
  };
}
