import { NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import type { LedgerFigures, ReconciliationRepository } from '../repositories/reconciliation.repository';
import { requireProjectId } from './project';

/** One (currency, kind)'s figures and whether the identity holds. */
export interface ReconciliationLine extends LedgerFigures {
  balanced: boolean;
}

export interface Reconciliation {
  lines: ReconciliationLine[];
  /** Every line balanced. */
  balanced: boolean;
}

/**
 * The identity the books keep (docs/architecture.md, "The money path"), per currency and kind:
 *
 *   earned = capped + reversed + declined + pending + available
 *   available + credited_back + debt = in_open_checks + in_closed_checks + claimed + expired
 *
 * The first: every movement earned is in exactly one of the ways it can end (declined, pending and
 * available net of what reversals took back, which is `reversed`). The second: the claim checks
 * hold the available movements plus what expired checks gave back (a credit adds an expired check's
 * amount to an open check, and the expired check keeps its amount), plus what is paid beyond
 * what is available (debt). Both are exact in base units.
 *
 * Points (docs/claims.md#points) are in no check: a point currency's lines hold the first identity,
 * nothing in checks (the second with zeros), and `get` adds that its users' balances sum to what its
 * kinds have available (net of reversals: a reversal takes from the balance what it takes from the
 * movement).
 */
function isBalanced(line: Omit<ReconciliationLine, 'balanced'>): boolean {
  return (
    line.earned === line.capped + line.reversed + line.declined + line.pending + line.available &&
    (line.currency.type === 'point' ? 0n : line.available) + line.creditedBack + line.debt ===
      line.inOpenChecks + line.inClosedChecks + line.claimed + line.expired
  );
}

/** What the ledger holds today, read in one snapshot, and whether it balances. */
export class ReconciliationService {
  constructor(private readonly repository: ReconciliationRepository) {}

  /** Every currency of the project, or the one named (CURRENCY_NOT_FOUND when it is none of the project's). */
  async get(projectId: string, currencyId: string | undefined): Promise<Reconciliation> {
    requireProjectId(projectId);
    const wanted = currencyId === undefined || currencyId === '' ? undefined : currencyId;
    if (wanted !== undefined && !isUuid(wanted)) throw notFound();
    const figures = await this.repository.figures(projectId, wanted?.toLowerCase());
    if (wanted !== undefined && figures.length === 0) throw notFound();
    const lines = figures.map((line) => ({ ...line, balanced: isBalanced(line) }));
    // A point currency's balances hold what its lines have available, all kinds together.
    for (const line of lines) {
      if (line.currency.type !== 'point') continue;
      const available = lines.filter((other) => other.currency.id === line.currency.id).reduce((sum, other) => sum + other.available, 0n);
      line.balanced &&= available === line.pointBalances;
    }
    return { lines, balanced: lines.every((line) => line.balanced) };
  }
}

function notFound(): NotFoundError {
  return new NotFoundError('CURRENCY_NOT_FOUND', 'currency_id names no currency of this project');
}
