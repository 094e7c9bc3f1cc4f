import type {
  Attribution as AttributionMessage,
  Conversion,
  Currency,
  CurrencyRef,
  GetReconciliationResponse,
  LeaderboardEntry,
  Movement,
  MovementDecision,
  PaidConversion,
  PayoutCaps as PayoutCapsMessage,
  PointBalance,
  PayoutTerms,
  ReferredUserPayouts,
  Reversal,
  Reward as RewardMessage,
  RewardEligibility,
  SubmissionResult,
  UserPayoutSum,
} from '../../../gen/referral/claim/v1/claim';
import {
  CapKind,
  ClaimCheckStatus,
  ConversionStatus,
  CurrencyType,
  DecisionOutcome,
  MovementKind,
  MovementStatus,
  PendingReason,
  ReversedFrom,
  SubmissionOutcome,
} from '../../../gen/referral/claim/v1/enums';
import { enumValue } from '../../rules/enums';
import { toGrpcStatus } from '../../platform/grpc/errors';
import type { Submission } from '../domain/conversion.service';
import type { DecisionResult } from '../domain/movement-decision.service';
import { hasCaps, type PayoutCaps } from '../domain/caps';
import type { Attribution, SideEligibility, UplineRewards } from '../domain/payouts';
import type { MovementKind as MovementKindName } from '../domain/vocabulary';
import type { Reconciliation } from '../domain/reconciliation.service';
import type { Reward } from '../domain/reward';
import type { CurrencyRecord } from '../repositories/currency.repository';
import type { LeaderboardEntryRecord } from '../repositories/leaderboard.repository';
import type { PaidConversionRecord } from '../repositories/paid-conversion.repository';
import type { ConversionRecord, CurrencySummary, MovementRecord, PayoutSumRecord, ReferredUserRecord } from '../repositories/movement.repository';
import type { PayoutTermsRecord } from '../repositories/payout-terms.repository';
import type { PointBalanceRecord } from '../repositories/point-balances';
import type { ReversalRecord } from '../repositories/reversal.repository';

/** Records -> protobuf messages: amounts and chain ids as decimal strings, vocabularies as their enums. */
export function toCurrencyMessage(currency: CurrencyRecord): Currency {
  return { ...toCurrencyRef(currency), createdAt: currency.createdAt };
}

export function toCurrencyRef(currency: CurrencySummary): CurrencyRef {
  return {
    id: currency.id,
    // A point currency's none: 0 and "" (proto3 scalars), read back as null by the gateway.
    chainId: (currency.chainId ?? 0n).toString(),
    address: currency.address ?? '',
    name: currency.name,
    decimals: currency.decimals,
    type: enumValue(CurrencyType, currency.type),
  };
}

export function toRewardMessage(reward: Reward | null): RewardMessage | undefined {
  if (reward === null) return undefined;
  return 'fixed' in reward ? { fixed: reward.fixed.toString() } : { bps: reward.bps };
}

export function toPayoutTermsMessage(terms: PayoutTermsRecord): PayoutTerms {
  return {
    conversionName: terms.conversionName,
    currencyId: terms.currencyId,
    endUser: toRewardMessage(terms.endUser),
    affiliate: toRewardMessage(terms.affiliate),
    ...toUplineMessage(terms.upline),
    tiers: terms.tiers.map((tier) => ({ audienceId: tier.audienceId, affiliate: toRewardMessage(tier.affiliate), ...toUplineMessage(tier.upline) })),
    endUserAllowlistAudienceId: terms.endUserAllowlistAudienceId ?? undefined,
    affiliateAllowlistAudienceId: terms.affiliateAllowlistAudienceId ?? undefined,
    holdDays: terms.holdDays,
    requireApproval: terms.requireApproval,
    caps: toCapsMessage(terms.caps),
    createdAt: terms.createdAt,
    updatedAt: terms.updatedAt,
  };
}

/** The rewards of referral levels 2..4 as the terms' and tiers' fields affiliate2..affiliate4 (unset: not paid). */
function toUplineMessage(upline: UplineRewards) {
  return {
    affiliate2: toRewardMessage(upline[2] ?? null),
    affiliate3: toRewardMessage(upline[3] ?? null),
    affiliate4: toRewardMessage(upline[4] ?? null),
  };
}

function toCapsMessage(caps: PayoutCaps): PayoutCapsMessage | undefined {
  if (!hasCaps(caps)) return undefined;
  const window = caps.perAffiliateWindow;
  return {
    perConversion: caps.perConversion?.toString(),
    perEndUser: caps.perEndUser?.toString(),
    perAffiliateWindow: window ? { amount: window.amount.toString(), days: window.days } : undefined,
  };
}

export function toSubmissionMessage(submission: Submission): SubmissionResult {
  if (submission.outcome === 'refused') {
    const { error } = submission;
    return {
      id: submission.id,
      outcome: SubmissionOutcome.REFUSED,
      status: ConversionStatus.UNSPECIFIED,
      error: { grpcCode: toGrpcStatus(error).status.code, code: error.code, message: error.message, details: error.details },
    };
  }
  return {
    id: submission.id,
    outcome: enumValue(SubmissionOutcome, submission.outcome),
    status: enumValue(ConversionStatus, submission.status),
  };
}

function toAttributionMessage(attribution: Attribution | null): AttributionMessage | undefined {
  if (!attribution) return undefined;
  return {
    affiliate: attribution.affiliate,
    master: attribution.master?.affiliate,
    spreadBps: attribution.master?.spreadBps,
    tierId: attribution.tierId ?? undefined,
    userRebateRateBps: attribution.rebateBps,
    upline: attribution.upline.map(({ level, affiliate }) => ({ level, affiliate })),
  };
}

export function toPayoutSumMessage(sum: PayoutSumRecord): UserPayoutSum {
  return {
    conversionName: sum.conversionName,
    isReferrer: sum.isReferrer,
    currency: toCurrencyRef(sum.currency),
    totalAmount: sum.total.toString(),
  };
}

export function toReferredUserPayoutsMessage(record: ReferredUserRecord): ReferredUserPayouts {
  return {
    user: record.user,
    volumeUsd: record.volumeUsd,
    earnings: record.earnings.map((earning) => ({ currency: toCurrencyRef(earning.currency), amount: earning.amount.toString() })),
    firstConversionAt: record.firstConversionAt,
    referralCode: record.referralCode ?? undefined,
    userRebateRateBps: record.rebateBps,
  };
}

export function toMovementMessage(movement: MovementRecord): Movement {
  return {
    kind: enumValue(MovementKind, movement.kind),
    beneficiary: movement.beneficiary,
    currency: toCurrencyRef(movement.currency),
    amount: movement.amount.toString(),
    reversedAmount: movement.reversed.toString(),
    conversionId: movement.conversionId,
    conversionName: movement.conversionName,
    createdAt: movement.createdAt,
    claimCheckStatus: movement.claimCheckStatus === null ? ClaimCheckStatus.UNSPECIFIED : enumValue(ClaimCheckStatus, movement.claimCheckStatus),
    status: enumValue(MovementStatus, movement.status),
    pendingReason: movement.pendingReason === null ? PendingReason.UNSPECIFIED : enumValue(PendingReason, movement.pendingReason),
    availableAt: movement.availableAt,
    decidedAt: movement.decision?.at,
    decidedBy: movement.decision?.by ?? undefined,
    declineReason: movement.decision?.declineReason ?? undefined,
    cappedAmount: (movement.capped?.amount ?? 0n).toString(),
    cappedBy: movement.capped ? enumValue(CapKind, movement.capped.by) : CapKind.UNSPECIFIED,
    rebate: movement.rebate,
    level: levelOf(movement),
  };
}

/** A movement's referral level as the API shows it: an affiliate_payout's (1..4); 0 on other kinds, which have none. */
function levelOf(movement: { kind: MovementKindName; level: number }): number {
  return movement.kind === 'affiliate_payout' ? movement.level : 0;
}

export function toMovementDecisionMessage(result: DecisionResult): MovementDecision {
  return {
    conversionId: result.conversionId,
    outcome: enumValue(DecisionOutcome, result.outcome),
    movements: result.movements.map(toMovementMessage),
  };
}

/** A side that was not checked against an allowlist could earn: eligible, against no audience. */
function toEligibilityMessage(side: SideEligibility | null): RewardEligibility {
  return side ? { allowlistAudienceId: side.allowlistAudienceId, eligible: side.eligible } : { eligible: true };
}

export function toReversalMessage(reversal: ReversalRecord): Reversal {
  return {
    reversalId: reversal.reversalId,
    conversionId: reversal.conversionId,
    shareBps: reversal.shareBps,
    reason: reversal.reason,
    volumeUsd: reversal.volumeUsd ?? undefined,
    revenueUsd: reversal.revenueUsd ?? undefined,
    reversedBy: reversal.reversedBy,
    createdAt: reversal.createdAt,
    movements: reversal.movements.map((part) => ({
      kind: enumValue(MovementKind, part.kind),
      beneficiary: part.beneficiary,
      currencyId: part.currencyId,
      amount: part.amount.toString(),
      was: enumValue(ReversedFrom, part.was),
      claimCheckId: part.claimCheckId ?? undefined,
      fromCheck: part.fromCheck.toString(),
      toDebt: part.toDebt.toString(),
      rebate: part.rebate,
      level: levelOf(part),
    })),
  };
}

/** A conversion as GetConversion and ListConversions answer it; its reversals only where they were read (GetConversion). */
export function toConversionMessage(conversion: ConversionRecord, reversals: readonly ReversalRecord[] = []): Conversion {
  // Sides exist once the conversion was paid under terms: the end user always, the affiliate when someone referred the user.
  const paid = conversion.status === 'processed';
  return {
    id: conversion.id,
    name: conversion.name,
    user: conversion.user,
    status: enumValue(ConversionStatus, conversion.status),
    occurredAt: conversion.occurredAt,
    receivedAt: conversion.receivedAt,
    processedAt: conversion.processedAt ?? undefined,
    volumeUsd: conversion.volumeUsd ?? undefined,
    revenueUsd: conversion.revenueUsd ?? undefined,
    rewardBase: conversion.rewardBase?.toString(),
    referralCode: conversion.referralCode ?? undefined,
    attribution: toAttributionMessage(conversion.attribution),
    movements: conversion.movements.map(toMovementMessage),
    failureReason: conversion.failureReason ?? undefined,
    endUserEligibility: paid ? toEligibilityMessage(conversion.eligibility.endUser) : undefined,
    affiliateEligibility: paid && conversion.attribution ? toEligibilityMessage(conversion.eligibility.affiliate) : undefined,
    reversals: reversals.map(toReversalMessage),
  };
}

export function toLeaderboardEntryMessage(entry: LeaderboardEntryRecord, chainId: bigint): LeaderboardEntry {
  return {
    rank: String(entry.rank),
    user: entry.user,
    totalAmount: entry.totalAmount.toString(),
    totalAttributions: entry.totalAttributions.toString(),
    chainId: chainId.toString(),
  };
}

export function toPaidConversionMessage(conversion: PaidConversionRecord): PaidConversion {
  return {
    id: conversion.id,
    name: conversion.name,
    status: enumValue(ConversionStatus, conversion.status),
    occurredAt: conversion.occurredAt,
    user: conversion.user,
    affiliateId: conversion.affiliateId ?? undefined,
    masterId: conversion.masterId ?? undefined,
    masterSpreadBps: conversion.masterSpreadBps ?? undefined,
    tierId: conversion.tierId ?? undefined,
    volumeUsd: conversion.volumeUsd ?? undefined,
    revenueUsd: conversion.revenueUsd ?? undefined,
    currency: conversion.currency ? toCurrencyRef(conversion.currency) : undefined,
    affiliatePayout: conversion.affiliatePayout.toString(),
    agencyPayout: conversion.agencyPayout.toString(),
    reversals: conversion.reversals.map((reversal) => ({
      reversalId: reversal.reversalId,
      shareBps: reversal.shareBps,
      volumeUsd: reversal.volumeUsd ?? undefined,
      revenueUsd: reversal.revenueUsd ?? undefined,
      affiliatePayout: reversal.affiliatePayout.toString(),
      agencyPayout: reversal.agencyPayout.toString(),
      upline: reversal.upline.map((level) => ({ level: level.level, amount: level.amount.toString() })),
    })),
    upline: conversion.upline.map((level) => ({
      level: level.level,
      affiliateId: level.affiliateId,
      affiliatePayout: level.affiliatePayout.toString(),
    })),
  };
}

export function toReconciliationMessage(reconciliation: Reconciliation): GetReconciliationResponse {
  return {
    results: reconciliation.lines.map((line) => ({
      currency: toCurrencyRef(line.currency),
      kind: enumValue(MovementKind, line.kind),
      earned: line.earned.toString(),
      capped: line.capped.toString(),
      reversed: line.reversed.toString(),
      declined: line.declined.toString(),
      pending: line.pending.toString(),
      available: line.available.toString(),
      inOpenChecks: line.inOpenChecks.toString(),
      inClosedChecks: line.inClosedChecks.toString(),
      claimed: line.claimed.toString(),
      expired: line.expired.toString(),
      creditedBack: line.creditedBack.toString(),
      debt: line.debt.toString(),
      balanced: line.balanced,
    })),
    balanced: reconciliation.balanced,
  };
}

export function toPointBalanceMessage(record: PointBalanceRecord): PointBalance {
  return {
    user: record.user,
    balance: record.balance.toString(),
    credited: record.credited.toString(),
    takenBack: record.takenBack.toString(),
    updatedAt: record.updatedAt ?? undefined,
  };
}
