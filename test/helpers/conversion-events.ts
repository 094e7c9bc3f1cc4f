import { randomUUID } from 'node:crypto';
import type { EventPayload } from '../../services/platform/events/contracts';

type Processed = EventPayload<'claim.conversion.processed'>;
type Reversed = EventPayload<'claim.conversion.reversed'>;
type ReversedPayout = Reversed['reversals'][number];

/** Each payout's floor share of a reversal of `shareBps` (amount × share / 10,000), taken from what was available, with its level and rebate mark. */
export function payoutShares(converted: Processed, shareBps: number): ReversedPayout[] {
  return converted.payouts.map((payout) => {
    const amount = ((BigInt(payout.amount) * BigInt(shareBps)) / 10_000n).toString();
    return {
      kind: payout.kind,
      user: payout.user,
      amount,
      was: 'available' as const,
      from_check: amount,
      to_debt: '0',
      ...(payout.level === undefined ? {} : { level: payout.level }),
      ...(payout.rebate ? { rebate: true as const } : {}),
    };
  });
}

/**
 * The claim service's `claim.conversion.reversed` of `shareBps` of a paid conversion, as the consumers of its
 * events (the agency's metrics, the audience's condition inputs) receive it: the conversion's parties and upline,
 * reversed when it occurred, the share of the figures given, and by default each payout's floor share.
 */
export function reversalEvent(
  converted: Processed,
  shareBps: number,
  figures: { volume: string; revenue: string },
  reversals: ReversedPayout[] = payoutShares(converted, shareBps),
): Reversed {
  return {
    conversion_id: converted.conversion_id,
    reversal_id: `rev-${randomUUID()}`,
    name: converted.name,
    share_bps: shareBps,
    reason: 'refund',
    reversed_at: converted.occurred_at,
    occurred_at: converted.occurred_at,
    user: converted.user,
    affiliate: converted.affiliate,
    master: converted.master ? { id: converted.master.id, user: converted.master.user } : null,
    ...(converted.upline ? { upline: converted.upline } : {}),
    volume_usd: figures.volume,
    revenue_usd: figures.revenue,
    currency_id: converted.currency_id,
    reversals,
  };
}
