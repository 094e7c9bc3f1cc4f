import type { ApiResult } from '../../api/client';

export type Reconciliation = ApiResult<'/api/v1/projects/{projectId}/ledger/reconciliation', 'get'>;
export type ReconciliationLine = Reconciliation['results'][number];
type Figure = Exclude<keyof ReconciliationLine, 'currency' | 'kind' | 'balanced'>;

/** A row of a currency's books: one figure of the API, or a sum of figures (one side of an identity). */
export interface BookRow {
  label: string;
  /** The figures it adds up; one for a figure of the API. */
  of: readonly Figure[];
  /** A side of an identity: shown as a total. */
  total?: boolean;
}

/**
 * The books as the dashboard lays them out, each identity's terms followed by its sum:
 *   earned = capped + reversed + declined + pending + available
 *   available + credited back + debt = in open checks + in closed checks + claimed + expired
 */
export const BOOK_ROWS: readonly BookRow[] = [
  { label: 'Earned', of: ['earned'], total: true },
  { label: 'Capped', of: ['capped'] },
  { label: 'Reversed', of: ['reversed'] },
  { label: 'Declined', of: ['declined'] },
  { label: 'Pending', of: ['pending'] },
  { label: 'Available', of: ['available'] },
  { label: 'Capped + reversed + declined + pending + available', of: ['capped', 'reversed', 'declined', 'pending', 'available'], total: true },
  { label: 'Credited back (expired vouchers)', of: ['credited_back'] },
  { label: 'Debt (owed by users)', of: ['debt'] },
  { label: 'Available + credited back + debt', of: ['available', 'credited_back', 'debt'], total: true },
  { label: 'In open checks', of: ['in_open_checks'] },
  { label: 'In closed checks (vouchers out)', of: ['in_closed_checks'] },
  { label: 'Claimed on chain', of: ['claimed'] },
  { label: 'Expired', of: ['expired'] },
  { label: 'Open + closed + claimed + expired checks', of: ['in_open_checks', 'in_closed_checks', 'claimed', 'expired'], total: true },
];

/** A row's value on one line: the sum of its figures, in base units (bigints, never floats). */
export function rowValue(row: BookRow, line: ReconciliationLine): string {
  return row.of.reduce((sum, figure) => sum + BigInt(line[figure]), 0n).toString();
}

/** The lines grouped by currency, in the API's order (currencies in creation order, then kinds). */
export function byCurrency(lines: readonly ReconciliationLine[]): { currency: ReconciliationLine['currency']; lines: ReconciliationLine[] }[] {
  const groups = new Map<string, { currency: ReconciliationLine['currency']; lines: ReconciliationLine[] }>();
  for (const line of lines) {
    const group = groups.get(line.currency.id) ?? { currency: line.currency, lines: [] };
    group.lines.push(line);
    groups.set(line.currency.id, group);
  }
  return [...groups.values()];
}
