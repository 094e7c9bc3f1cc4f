import { groupBy } from '../../rules/group-by';
import type { Transaction } from 'kysely';
import type { EventPayload } from '../../platform/events/contracts';
import { isUuid } from '../../rules/ids';
import { defineConsumer } from '../../platform/outbox/consumer';
import type { OutboxEventOf } from '../../platform/outbox/event';
import type { AgencyDatabase } from '../database';
import {
  type ConversionFact,
  lockProjectMetrics,
  type MetricCurrency,
  recordConversion,
  recordConversions,
  recordReversal,
  rememberCurrencies,
  type ReversalFact,
} from '../repositories/affiliate-metrics.repository';

type Consumed = 'claim.conversion.processed' | 'claim.conversion.reversed';
type ConversionProcessed = EventPayload<'claim.conversion.processed'>;
type ConversionReversed = EventPayload<'claim.conversion.reversed'>;

/**
 * The claim service's paid conversions, kept as the affiliate metrics projection (volume, revenue,
 * conversions, end users, earnings; a master's referred volume by each conversion's frozen master; the
 * upline's levels 2..4 with what each was paid, docs/claims.md#referral-levels).
 * Each event is applied once (processed_events) in one transaction, and its aggregates change only
 * when its fact is new, so a replay or a rebuild that already brought it changes nothing. Arrival
 * order does not matter: every aggregate is a sum, a count, or a least/greatest. A reversal takes its
 * share back out of the conversion's fact and of every aggregate it was added to (recordReversal);
 * it waits for its conversion's fact (it is retried until the fact is there).
 */
export const affiliateMetrics = defineConsumer<AgencyDatabase, Consumed>({
  name: 'agency-affiliate-metrics',
  eventTypes: ['claim.conversion.processed', 'claim.conversion.reversed'],
  handle: async (trx, event, { now }) => {
    if (event.type === 'claim.conversion.reversed') return applyReversal(trx, event.projectId, event.payload, now);
    const { projectId, payload } = event;
    const fact = conversionFact(payload);
    const unknown = await unknownAffiliates(trx, projectId, affiliatesOf(fact));
    // Ids the claim service got from this service: one it does not know can only be another deployment's.
    if (unknown.length > 0) return { ignored: `affiliate ${unknown.join(', ')} is not an affiliate of project ${projectId}` };
    await lockProjectMetrics(trx, projectId, 'shared');
    if (payload.currency) {
      const { id, chain_id, address, name, decimals } = payload.currency;
      await rememberCurrencies(trx, projectId, [metricCurrency({ id, chain_id, address, name, decimals })]);
    }
    await recordConversion(trx, projectId, fact, now);
  },
  // A relay round's events (one project each in practice, grouped per project anyway): a few statements per project.
  handleBatch: async (trx, events, { now }) => {
    const ignored = new Map<string, string>();
    const conversions: Array<OutboxEventOf<'claim.conversion.processed'>> = [];
    for (const event of events) {
      // Reversals travel one per job (only conversions are batched); one found here is applied on its own.
      if (event.type === 'claim.conversion.reversed') {
        const result = await applyReversal(trx, event.projectId, event.payload, now);
        if (result) ignored.set(event.id, result.ignored);
      } else conversions.push(event);
    }
    const byProject = groupBy(conversions, (event) => event.projectId);
    for (const [projectId, projectEvents] of [...byProject].sort(([a], [b]) => a.localeCompare(b))) {
      const facts = projectEvents.map((event) => ({ event, fact: conversionFact(event.payload) }));
      const unknown = new Set(
        await unknownAffiliates(
          trx,
          projectId,
          facts.flatMap(({ fact }) => affiliatesOf(fact)),
        ),
      );
      const applying = facts.filter(({ event, fact }) => {
        const missing = affiliatesOf(fact).filter((id): id is string => id !== null && unknown.has(id));
        if (missing.length > 0) ignored.set(event.id, `affiliate ${missing.join(', ')} is not an affiliate of project ${projectId}`);
        return missing.length === 0;
      });
      if (applying.length === 0) continue;
      await lockProjectMetrics(trx, projectId, 'shared');
      const currencies: MetricCurrency[] = applying.flatMap(({ event }) => {
        const currency = event.payload.currency;
        return currency ? [metricCurrency(currency)] : [];
      });
      await rememberCurrencies(
        trx,
        projectId,
        currencies.sort((a, b) => a.id.localeCompare(b.id)),
      );
      await recordConversions(
        trx,
        projectId,
        applying.map(({ fact }) => fact),
        now,
      );
    }
    return ignored;
  },
});

/** An affiliate_payout's referral level: 1 when the event says none (older events, other kinds). */
const levelOf = (part: { level?: number | undefined }) => part.level ?? 1;

/**
 * The event as the projection's fact: the amounts paid to the affiliate (its level-1 affiliate_payout) and to
 * its master summed by kind, and its upline (docs/claims.md#referral-levels) with each level's affiliate_payout.
 */
export function conversionFact(payload: ConversionProcessed): ConversionFact {
  const paid = (kind: ConversionProcessed['payouts'][number]['kind'], level = 1) =>
    payload.payouts
      .filter((payout) => payout.kind === kind && (kind !== 'affiliate_payout' || levelOf(payout) === level))
      .reduce((sum, payout) => sum + BigInt(payout.amount), 0n);
  return {
    conversionId: payload.conversion_id,
    name: payload.name,
    status: payload.status,
    occurredAt: new Date(payload.occurred_at),
    user: { identifier: payload.user.identifier, identifierType: payload.user.identifier_type },
    affiliateId: payload.affiliate?.id ?? null,
    masterId: payload.affiliate ? (payload.master?.id ?? null) : null,
    spreadBps: payload.affiliate ? (payload.master?.spread_bps ?? null) : null,
    tierId: payload.tier_id,
    volumeUsd: payload.volume_usd,
    revenueUsd: payload.revenue_usd,
    currencyId: payload.currency_id,
    affiliatePayout: paid('affiliate_payout'),
    agencyPayout: paid('agency_payout'),
    // Nobody's upline without an affiliate; an older event has none (level 1 only).
    upline: payload.affiliate
      ? (payload.upline ?? []).map((up) => ({ level: up.level, affiliateId: up.id, payout: paid('affiliate_payout', up.level) }))
      : [],
  };
}

/** The event as the projection's reversal: the amounts taken back from the affiliate and from its master, summed by kind. */
export function reversalFact(payload: ConversionReversed): ReversalFact {
  const taken = (kind: ConversionReversed['reversals'][number]['kind'], level = 1) =>
    payload.reversals
      .filter((part) => part.kind === kind && (kind !== 'affiliate_payout' || levelOf(part) === level))
      .reduce((sum, part) => sum + BigInt(part.amount), 0n);
  return {
    reversalId: payload.reversal_id,
    conversionId: payload.conversion_id,
    shareBps: payload.share_bps,
    volumeUsd: payload.volume_usd,
    revenueUsd: payload.revenue_usd,
    affiliatePayout: taken('affiliate_payout'),
    agencyPayout: taken('agency_payout'),
    levelPayouts: [2, 3, 4].map((level) => ({ level, payout: taken('affiliate_payout', level) })).filter((part) => part.payout > 0n),
  };
}

/**
 * A reversal into the projection. Its conversion's fact must be there: when it is not, a conversion
 * naming affiliates this project does not have was left out (so is its reversal); otherwise its
 * event has not been applied yet, and throwing retries the reversal later (with backoff).
 */
async function applyReversal(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  payload: ConversionReversed,
  now: Date,
): Promise<{ ignored: string } | undefined> {
  // Exclusive: a batch of conversions is one statement whose CTEs lock their tables in no fixed order, so a
  // reversal taking the same rows row by row could deadlock with it; reversals are rare, they wait instead.
  await lockProjectMetrics(trx, projectId, 'exclusive');
  const applied = await recordReversal(trx, projectId, reversalFact(payload), now, { aggregates: true });
  if (applied !== 'no_fact') return undefined;
  const unknown = await unknownAffiliates(trx, projectId, [payload.affiliate?.id ?? null, payload.master?.id ?? null]);
  if (unknown.length > 0) return { ignored: `affiliate ${unknown.join(', ')} is not an affiliate of project ${projectId}` };
  throw new Error(
    `conversion ${payload.conversion_id} is not in the affiliate metrics yet: reversal ${payload.reversal_id} waits for its claim.conversion.processed`,
  );
}

/** The affiliates a fact names: its affiliate, its master and its upline. */
const affiliatesOf = (fact: ConversionFact): Array<string | null> => [
  fact.affiliateId,
  fact.masterId,
  ...(fact.upline ?? []).map((up) => up.affiliateId),
];

async function unknownAffiliates(trx: Transaction<AgencyDatabase>, projectId: string, ids: ReadonlyArray<string | null>): Promise<string[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return [];
  const valid = wanted.filter(isUuid);
  const found =
    valid.length === 0
      ? []
      : await trx
          .selectFrom('affiliates')
          .select('id')
          .where('project_id', '=', projectId)
          .where(
            'id',
            'in',
            valid.map((id) => id.toLowerCase()),
          )
          .execute();
  const known = new Set(found.map((row) => row.id));
  return wanted.filter((id) => !known.has(id.toLowerCase()));
}

/**
 * The event's currency as metric_currencies keeps it: a point currency has no chain and no address
 * (null in the event), kept as chain 0 and address "" as the claim service's gRPC spells "none".
 */
function metricCurrency(currency: { id: string; chain_id: string | null; address: string | null; name: string; decimals: number }): MetricCurrency {
  return { id: currency.id, chainId: currency.chain_id ?? '0', address: currency.address ?? '', name: currency.name, decimals: currency.decimals };
}
