import type { UserRef } from '../../../gen/referral/common/v1/common';
import type {
  AffiliateRef,
  Conversion,
  ConversionInput,
  Currency,
  CurrencyRef,
  LeaderboardEntry,
  Movement,
  PayoutTerms,
  Reversal,
  Reward,
  RewardEligibility,
  SubmissionResult,
} from '../../../gen/referral/claim/v1/claim';
import {
  CapKind,
  ClaimCheckStatus,
  ConversionStatus,
  CurrencyType,
  MovementKind,
  MovementStatus,
  PendingReason,
  ReversedFrom,
  SubmissionOutcome,
} from '../../../gen/referral/claim/v1/enums';
import type { EnumName } from '../../../services/rules/enums';
import { unitsAsNumber } from '../../../services/rules/money';
import { httpStatusOf } from '../../http/errors';
import { count, nameOf, optionalNameOf, required } from '../../http/present';
import type { ConversionBody } from './claim.schemas';

/** gRPC messages -> the JSON the API documents (claim.schemas.ts). */
export function presentUser(user: UserRef | undefined) {
  const { identifier, identifierType } = required(user, 'user');
  return { user_identifier: identifier, user_identifier_type: identifierType };
}

/** A chain id: uint64 on the wire; the API accepts only ids a JSON number holds exactly. */
function chainIdOf(value: string): number {
  return count(value, 'chain_id');
}

export function presentCurrencyRef(currency: CurrencyRef | undefined) {
  const { id, chainId, address, name, decimals, type } = required(currency, 'currency');
  // A point currency has no chain and no address: 0 and "" on the wire, null here.
  const point = type === CurrencyType.POINT;
  return {
    id,
    chain_id: point ? null : chainIdOf(chainId),
    address: point ? null : address,
    name,
    decimals,
    type: nameOf(CurrencyType, type, 'type'),
  };
}

export function presentCurrency(currency: Currency) {
  return { ...presentCurrencyRef(currency), created_at: required(currency.createdAt, 'created_at').toISOString() };
}

export function presentReward(reward: Reward | undefined) {
  if (reward === undefined) return null;
  if (reward.fixed !== undefined) return { fixed: reward.fixed };
  return { bps: required(reward.bps, 'bps') };
}

/** The rewards of referral levels 2..4 of the terms or a tier (docs/claims.md#referral-levels); null: not paid. */
function presentUplineRewards(rewards: { affiliate2?: Reward | undefined; affiliate3?: Reward | undefined; affiliate4?: Reward | undefined }) {
  return {
    affiliate2: presentReward(rewards.affiliate2),
    affiliate3: presentReward(rewards.affiliate3),
    affiliate4: presentReward(rewards.affiliate4),
  };
}

/** An affiliate_payout's referral level (1..4); null on other kinds (the service answers 0 there). */
function presentLevel(kind: MovementKind, level: number): number | null {
  return kind === MovementKind.AFFILIATE_PAYOUT ? level : null;
}

export function presentPayoutTerms(terms: PayoutTerms) {
  return {
    conversion_name: terms.conversionName,
    currency_id: terms.currencyId,
    end_user: presentReward(terms.endUser),
    affiliate: presentReward(terms.affiliate),
    ...presentUplineRewards(terms),
    tiers: terms.tiers.map((tier) => ({
      audience_id: tier.audienceId,
      affiliate: required(presentReward(tier.affiliate) ?? undefined, 'tiers.affiliate'),
      ...presentUplineRewards(tier),
    })),
    end_user_allowlist_audience_id: terms.endUserAllowlistAudienceId ?? null,
    affiliate_allowlist_audience_id: terms.affiliateAllowlistAudienceId ?? null,
    hold_days: terms.holdDays,
    require_approval: terms.requireApproval,
    caps: {
      per_conversion: terms.caps?.perConversion ?? null,
      per_end_user: terms.caps?.perEndUser ?? null,
      per_affiliate_window: terms.caps?.perAffiliateWindow ?? null,
    },
    created_at: required(terms.createdAt, 'created_at').toISOString(),
    updated_at: required(terms.updatedAt, 'updated_at').toISOString(),
  };
}

/** The JSON body -> the gRPC conversion: null and absent are both unset. */
export function toConversionInput(body: ConversionBody): ConversionInput {
  return {
    id: body.id,
    name: body.name,
    user: { identifier: body.user.identifier, identifierType: body.user.identifier_type },
    occurredAt: body.occurred_at ? new Date(body.occurred_at) : undefined,
    volumeUsd: body.volume_usd ?? undefined,
    revenueUsd: body.revenue_usd ?? undefined,
    rewardBase: body.reward_base ?? undefined,
    referralCode: body.referral_code ?? undefined,
  };
}

/**
 * One submission's outcome. In a batch (`path`, e.g. "conversions[3]"), the fields a refusal names
 * are prefixed with the item's place in the request, and its message says so.
 */
export function presentSubmission(result: SubmissionResult, path?: string) {
  const outcome = nameOf(SubmissionOutcome, result.outcome, 'outcome');
  const error = result.error;
  const details = (error?.details ?? []).map(({ field, reason }) => ({ field: path ? `${path}.${field}` : field, reason }));
  return {
    id: result.id === '' ? null : result.id,
    outcome,
    status: optionalNameOf(ConversionStatus, result.status, 'status'),
    error: error
      ? { status: httpStatusOf(error.grpcCode), code: error.code, message: path && details.length > 0 ? summarise(details) : error.message, details }
      : null,
  };
}

/** "field: reason", and how many more, as every 400 of the gateway words it. */
export function summarise(details: Array<{ field: string; reason: string }>): string {
  const first = details[0]!;
  return `${first.field}: ${first.reason}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`;
}

function presentAffiliate(affiliate: AffiliateRef | undefined) {
  return affiliate ? { id: affiliate.id, ...presentUser(affiliate.user) } : null;
}

/**
 * One side of a paid conversion: paid (what its movements of `kind` sum to, the user's rebate apart: it is
 * the affiliate's, and the affiliate's side is what it kept; the upline's affiliate_payouts apart: the side is the
 * referring affiliate's, level 1, and the movements list each level's) or not eligible under its allowlist.
 */
function presentRewardSide(conversion: Conversion, eligibility: RewardEligibility, kind: MovementKind) {
  const amount = conversion.movements
    .filter((movement) => movement.kind === kind && !movement.rebate && (kind !== MovementKind.AFFILIATE_PAYOUT || movement.level === 1))
    .reduce((sum, movement) => sum + BigInt(movement.amount), 0n);
  return {
    status: eligibility.eligible ? ('paid' as const) : ('not_eligible' as const),
    allowlist_audience_id: eligibility.allowlistAudienceId ?? null,
    amount: amount.toString(),
  };
}

/** The sides of a processed conversion (the master's follows its affiliate's eligibility); null before, or without terms. */
function presentRewards(conversion: Conversion) {
  if (conversion.status !== ConversionStatus.PROCESSED || !conversion.endUserEligibility) return null;
  const affiliate = conversion.affiliateEligibility;
  return {
    end_user: presentRewardSide(conversion, conversion.endUserEligibility, MovementKind.END_USER_PAYOUT),
    affiliate: affiliate ? presentRewardSide(conversion, affiliate, MovementKind.AFFILIATE_PAYOUT) : null,
    master: affiliate && conversion.attribution?.master ? presentRewardSide(conversion, affiliate, MovementKind.AGENCY_PAYOUT) : null,
  };
}

/** A reversal and what it took from each movement. */
export function presentReversal(reversal: Reversal) {
  return {
    reversal_id: reversal.reversalId,
    conversion_id: reversal.conversionId,
    share_bps: reversal.shareBps,
    reason: reversal.reason,
    volume_usd: reversal.volumeUsd ?? null,
    revenue_usd: reversal.revenueUsd ?? null,
    reversed_by: reversal.reversedBy,
    created_at: required(reversal.createdAt, 'created_at').toISOString(),
    movements: reversal.movements.map((part) => ({
      kind: nameOf(MovementKind, part.kind, 'kind'),
      rebate: part.rebate,
      level: presentLevel(part.kind, part.level),
      ...presentUser(part.beneficiary),
      currency_id: part.currencyId,
      amount: part.amount,
      was: nameOf(ReversedFrom, part.was, 'was'),
      claim_check_id: part.claimCheckId ?? null,
      from_check: part.fromCheck,
      to_debt: part.toDebt,
    })),
  };
}

/** A conversion; with its reversals when `withReversals` (GET one conversion reads them, the list does not). */
export function presentConversion(conversion: Conversion, withReversals = false) {
  const { attribution } = conversion;
  return {
    id: conversion.id,
    name: conversion.name,
    ...presentUser(conversion.user),
    status: nameOf(ConversionStatus, conversion.status, 'status'),
    occurred_at: required(conversion.occurredAt, 'occurred_at').toISOString(),
    received_at: required(conversion.receivedAt, 'received_at').toISOString(),
    processed_at: conversion.processedAt?.toISOString() ?? null,
    volume_usd: conversion.volumeUsd ?? null,
    revenue_usd: conversion.revenueUsd ?? null,
    reward_base: conversion.rewardBase ?? null,
    referral_code: conversion.referralCode ?? null,
    attribution: attribution
      ? {
          affiliate: required(presentAffiliate(attribution.affiliate) ?? undefined, 'attribution.affiliate'),
          master: presentAffiliate(attribution.master),
          upline: attribution.upline.map((level) => ({
            level: level.level,
            ...required(presentAffiliate(level.affiliate) ?? undefined, 'attribution.upline.affiliate'),
          })),
          spread_bps: attribution.spreadBps ?? null,
          tier_id: attribution.tierId ?? null,
          user_rebate_rate_bps: attribution.userRebateRateBps,
        }
      : null,
    failure_reason: conversion.failureReason ?? null,
    movements: conversion.movements.map(presentConversionMovement),
    rewards: presentRewards(conversion),
    ...(withReversals ? { reversals: conversion.reversals.map(presentReversal) } : {}),
  };
}

/** A movement as a conversion lists it. */
export function presentConversionMovement(movement: Movement) {
  return {
    kind: nameOf(MovementKind, movement.kind, 'kind'),
    rebate: movement.rebate,
    level: presentLevel(movement.kind, movement.level),
    ...presentUser(movement.beneficiary),
    currency: presentCurrencyRef(movement.currency),
    amount: movement.amount,
    ...presentMovementStatus(movement),
    created_at: required(movement.createdAt, 'created_at').toISOString(),
  };
}

/**
 * A movement's status fields: its own status, why it waits, when it is available, its payout
 * status (its check's status, or its own while it is in no check), and what a cap cut from it.
 */
function presentMovementStatus(movement: Movement) {
  const status = nameOf(MovementStatus, movement.status, 'status');
  let payoutStatus: EnumName<typeof ClaimCheckStatus> | 'pending' | 'declined' | 'available';
  if (movement.claimCheckStatus !== ClaimCheckStatus.UNSPECIFIED)
    payoutStatus = nameOf(ClaimCheckStatus, movement.claimCheckStatus, 'claim_check_status');
  // Points are in no check: available means in the user's points balance.
  else if (status === 'available' && movement.currency?.type !== CurrencyType.POINT)
    throw new Error('the service answered an available movement in no claim check');
  else payoutStatus = status;
  return {
    payout_status: payoutStatus,
    status,
    pending_reason: optionalNameOf(PendingReason, movement.pendingReason, 'pending_reason'),
    available_at: required(movement.availableAt, 'available_at').toISOString(),
    reversed_amount: movement.reversedAmount,
    capped_amount: movement.cappedBy === CapKind.UNSPECIFIED ? null : movement.cappedAmount,
    capped_by: optionalNameOf(CapKind, movement.cappedBy, 'capped_by'),
  };
}

/** A movement as a user's list shows it (the fields the Fuul SDK reads, and ours). */
export function presentMovement(projectId: string) {
  return (movement: Movement) => {
    const kind = nameOf(MovementKind, movement.kind, 'kind');
    const currency = presentCurrencyRef(movement.currency);
    return {
      date: required(movement.createdAt, 'created_at').toISOString(),
      kind,
      is_referrer: kind !== 'end_user_payout',
      rebate: movement.rebate,
      level: presentLevel(movement.kind, movement.level),
      ...presentUser(movement.beneficiary),
      conversion_id: movement.conversionId,
      conversion_name: movement.conversionName,
      total_amount: movement.amount,
      currency_address: currency.address,
      chain_id: currency.chain_id,
      currency,
      ...presentMovementStatus(movement),
      payout_status_details: null,
      project_id: projectId,
    };
  };
}

/** A board's entry: `total_amount` a JSON number of whole currency units (as the Fuul SDK types it), `total_amount_base_units` exact. */
export const presentLeaderboardEntry = (decimals: number) => (entry: LeaderboardEntry) => {
  const user = presentUser(entry.user);
  return {
    rank: count(entry.rank, 'rank'),
    address: user.user_identifier,
    ...user,
    total_amount: unitsAsNumber(entry.totalAmount, decimals),
    total_amount_base_units: entry.totalAmount,
    total_attributions: count(entry.totalAttributions, 'total_attributions'),
    // 0: the point currency's board (points have no chain).
    chain_id: entry.chainId === '0' ? null : entry.chainId,
  };
};
