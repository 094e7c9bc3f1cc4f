import { groupBy } from '../../rules/group-by';
import type { Transaction } from 'kysely';
import type { EventPayload } from '../../platform/events/contracts';
import type { UserIdentifier } from '../../rules/identifiers';
import { defineConsumer } from '../../platform/outbox/consumer';
import type { OutboxEventOf } from '../../platform/outbox/event';
import type { AudienceDatabase } from '../database';
import { projectHasDynamicSegments } from '../repositories/dynamic-segments-gate';
import { recordPendingMatches } from '../repositories/pending-matches.repository';
import {
  type ConversionInput,
  recordConversionInputs,
  recordReferralInputs,
  recordReversalInputs,
  type ReferralInput,
  type ReversalInput,
} from '../repositories/user-metrics.repository';

type Consumed = 'claim.conversion.processed' | 'claim.conversion.reversed' | 'agency.referral.created';
type ConversionProcessed = EventPayload<'claim.conversion.processed'>;
type ConversionReversed = EventPayload<'claim.conversion.reversed'>;
type ReferralCreated = EventPayload<'agency.referral.created'>;

/** A user as the events name one. */
type EventUser = { identifier: string; identifier_type: UserIdentifier['identifierType'] };
const userOf = (user: EventUser): UserIdentifier => ({
  identifier: user.identifier,
  identifierType: user.identifier_type,
});
/** The UTC day of an ISO time: what the day tables are keyed by. */
const utcDay = (iso: string) => new Date(iso).toISOString().slice(0, 10);

export function conversionInput(payload: ConversionProcessed): ConversionInput {
  // Every payout to a user, whatever its kind: what the user earned.
  return inputOf(payload, payload.payouts);
}

export function reversalInput(payload: ConversionReversed): ReversalInput {
  // What came back from each beneficiary, whatever its kind (pending or paid out): it was counted as earned.
  return { conversionId: payload.conversion_id, shareBps: payload.share_bps, ...inputOf(payload, payload.reversals) };
}

/** What a conversion and a reversal of it both say: whose, which day, the (reversed) figures, the referrer, each user's amount. */
function inputOf(payload: ConversionProcessed | ConversionReversed, amounts: ReadonlyArray<{ user: EventUser; amount: string }>): ConversionInput {
  const currencyId = payload.currency_id;
  return {
    user: userOf(payload.user),
    name: payload.name,
    day: utcDay(payload.occurred_at),
    volumeUsd: payload.volume_usd ?? '0',
    revenueUsd: payload.revenue_usd ?? '0',
    referrer: payload.affiliate ? userOf(payload.affiliate.user) : null,
    earnings: currencyId === null ? [] : amounts.map((part) => ({ user: userOf(part.user), currencyId, amount: BigInt(part.amount) })),
  };
}

/** A reversal takes back what its conversion added: the same users' figures change. */
async function applyReversal(trx: Transaction<AudienceDatabase>, projectId: string, payload: ConversionReversed, now: Date): Promise<void> {
  const input = reversalInput(payload);
  await recordReversalInputs(trx, projectId, input, now);
  await recordRematches(
    trx,
    projectId,
    [input.user, ...(input.referrer ? [input.referrer] : []), ...input.earnings.map((earning) => earning.user)],
    now,
  );
}

function referralInput(payload: ReferralCreated): ReferralInput {
  return { referrer: userOf(payload.affiliate.user), day: utcDay(payload.referred_at) };
}

/** A referral event names its project; one that names another than the event's own can only be a fault: kept out. */
const foreignReferral = (projectId: string, payload: ReferralCreated) =>
  payload.project_id !== projectId ? `the referral names project ${payload.project_id}, the event ${projectId}` : undefined;

/**
 * The audience's projection of the claim and agency events into what dynamic conditions read
 * (migration 0004): a conversion adds to its user's own figures (per day and name, and all-time),
 * to its frozen affiliate's referred volume, and to every payout's beneficiary's earnings; a
 * referral adds one referred user to its referrer. A conversion no terms paid (no_terms) still
 * counts, as in the agency's affiliate metrics: it happened. Each event is applied once (processed_events, in
 * the same transaction), and every figure is a sum, so arrival order does not matter. The users whose
 * figures changed are recorded for re-matching (pending_matches) in the same transaction too, when
 * the project has a dynamic segment to match them against: a process dying before their match loses nothing.
 * A reversal takes its share of the conversion back out of the same figures (and the conversion out
 * of the counts once reversed in full); the figures refuse to go below zero, so a reversal arriving
 * before its conversion fails and is retried after it.
 */
export const conditionInputs = defineConsumer<AudienceDatabase, Consumed>({
  name: 'audience-condition-inputs',
  eventTypes: ['claim.conversion.processed', 'claim.conversion.reversed', 'agency.referral.created'],
  handle: async (trx, event, { now }) => {
    if (event.type === 'claim.conversion.reversed') return applyReversal(trx, event.projectId, event.payload, now);
    if (event.type === 'claim.conversion.processed') {
      const input = conversionInput(event.payload);
      await recordConversionInputs(trx, event.projectId, [input], now);
      await recordRematches(trx, event.projectId, usersOf([input], []), now);
      return;
    }
    const foreign = foreignReferral(event.projectId, event.payload);
    if (foreign) return { ignored: foreign };
    const input = referralInput(event.payload);
    await recordReferralInputs(trx, event.projectId, [input], now);
    await recordRematches(trx, event.projectId, usersOf([], [input]), now);
  },
  // A relay round's conversions (usually of one project): a few statements per project, whatever their number.
  handleBatch: async (trx, events, { now }) => {
    const ignored = new Map<string, string>();
    const byProject = groupBy(events, (event) => event.projectId);
    for (const [projectId, projectEvents] of [...byProject].sort(([a], [b]) => a.localeCompare(b))) {
      await applyProjectEvents(trx, projectId, projectEvents, now, ignored);
    }
    return ignored;
  },
});

async function applyProjectEvents(
  trx: Transaction<AudienceDatabase>,
  projectId: string,
  events: ReadonlyArray<OutboxEventOf<Consumed>>,
  now: Date,
  ignored: Map<string, string>,
): Promise<void> {
  const conversions: ConversionInput[] = [];
  const referrals: ReferralInput[] = [];
  const reversals: ConversionReversed[] = [];
  for (const event of events) {
    if (event.type === 'claim.conversion.processed') {
      conversions.push(conversionInput(event.payload));
      continue;
    }
    if (event.type === 'claim.conversion.reversed') {
      reversals.push(event.payload);
      continue;
    }
    const foreign = foreignReferral(projectId, event.payload);
    if (foreign) ignored.set(event.id, foreign);
    else referrals.push(referralInput(event.payload));
  }
  await recordConversionInputs(trx, projectId, conversions, now);
  await recordReferralInputs(trx, projectId, referrals, now);
  await recordRematches(trx, projectId, usersOf(conversions, referrals), now);
  // Reversals travel one per job (only conversions are batched); any found here come after the conversions they reverse.
  for (const reversal of reversals) await applyReversal(trx, projectId, reversal, now);
}

/** The users to re-match, when the project has a dynamic segment to match them against (dynamic-segments-gate.ts). */
export async function recordRematches(
  trx: Transaction<AudienceDatabase>,
  projectId: string,
  users: readonly UserIdentifier[],
  now: Date,
): Promise<void> {
  if (users.length === 0 || !(await projectHasDynamicSegments(trx, projectId))) return;
  await recordPendingMatches(trx, projectId, users, now);
}

/** The users whose condition inputs these change: a conversion's user, its referrer and its payouts' beneficiaries; a referral's referrer. */
function usersOf(conversions: readonly ConversionInput[], referrals: readonly ReferralInput[]): UserIdentifier[] {
  return [
    ...conversions.flatMap((input) => [input.user, ...(input.referrer ? [input.referrer] : []), ...input.earnings.map((earning) => earning.user)]),
    ...referrals.map((referral) => referral.referrer),
  ];
}
