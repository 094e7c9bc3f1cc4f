import type { UserIdentifier } from '../../rules/identifiers';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { ConversionOutcome } from '../repositories/conversion-outcome';
import type { PendingConversion } from '../repositories/conversion.repository';
import type { CurrencyRecord } from '../repositories/currency.repository';

/**
 * The `claim.conversion.processed` event of each paid conversion (services/platform/events/contracts.ts):
 * attribution, volume, revenue and payouts, for the agency's affiliate metrics, the audience's user
 * metrics and the project's webhooks, with its payouts as its terms' caps left them. A failed conversion paid nothing and tells nothing.
 */
const user = ({ identifier, identifierType }: UserIdentifier) => ({ identifier, identifier_type: identifierType });

export function conversionProcessedEvents(
  projectId: string,
  pending: ReadonlyMap<string, PendingConversion>,
  recorded: ConversionOutcome[],
  currencies: ReadonlyMap<string, CurrencyRecord>,
): NewOutboxEvent[] {
  return recorded.flatMap((outcome): NewOutboxEvent[] => {
    if (outcome.status === 'failed') return [];
    const conversion = pending.get(outcome.id);
    if (!conversion) throw new Error(`conversion ${outcome.id} was paid without being read`);
    const { attribution } = outcome;
    return [
      {
        type: 'claim.conversion.processed',
        projectId,
        payload: {
          conversion_id: conversion.id,
          name: conversion.name,
          status: outcome.status,
          occurred_at: conversion.occurredAt.toISOString(),
          user: user(conversion.user),
          affiliate: attribution ? { id: attribution.affiliate.id, user: user(attribution.affiliate.user) } : null,
          master: attribution?.master
            ? { id: attribution.master.affiliate.id, user: user(attribution.master.affiliate.user), spread_bps: attribution.master.spreadBps }
            : null,
          upline: (attribution?.upline ?? []).map(({ level, affiliate }) => ({ level, id: affiliate.id, user: user(affiliate.user) })),
          tier_id: attribution?.tierId ?? null,
          volume_usd: conversion.volumeUsd,
          revenue_usd: conversion.revenueUsd,
          currency_id: outcome.currencyId,
          currency: currencyOf(outcome.currencyId, currencies),
          // What is paid: a movement a cap cut to nothing paid nothing.
          payouts: outcome.movements
            .filter((movement) => movement.amount > 0n)
            .map((movement) => ({
              kind: movement.kind,
              user: user(movement.beneficiary),
              amount: movement.amount.toString(),
              ...(movement.rebate ? { rebate: true as const } : {}),
              ...(movement.kind === 'affiliate_payout' ? { level: movement.level ?? 1 } : {}),
            })),
        },
      },
    ];
  });
}

function currencyOf(id: string | null, currencies: ReadonlyMap<string, CurrencyRecord>) {
  if (id === null) return null;
  const currency = currencies.get(id);
  // Terms reference their currency (a foreign key) and currencies are never deleted.
  if (!currency) throw new Error(`currency ${id} of a paid conversion was not found`);
  return {
    id: currency.id,
    chain_id: currency.chainId === null ? null : currency.chainId.toString(),
    address: currency.address,
    name: currency.name,
    decimals: currency.decimals,
    type: currency.type,
  };
}
