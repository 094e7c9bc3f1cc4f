import type { ClaimServiceClient } from '../../../gen/referral/claim/v1/claim';
import { ConversionStatus } from '../../../gen/referral/claim/v1/enums';
import { UnavailableError } from '../../rules/errors';
import type { GrpcClient } from '../../platform/grpc/client';
import type { UserIdentifier } from '../../rules/identifiers';
import { isServiceError, readGrpcError } from '../../platform/grpc/errors';
import type { PaidConversionSource } from '../domain/affiliate-metrics.service';
import type { ConversionFact, MetricCurrency, ReversalFact } from '../repositories/affiliate-metrics.repository';

type ClaimCalls = GrpcClient<ClaimServiceClient>['call'];

/** The claim service's paid conversions (ListPaidConversions), as the projection's facts. */
export class GrpcPaidConversionSource implements PaidConversionSource {
  constructor(private readonly claim: ClaimCalls) {}

  async page(
    projectId: string,
    afterId: string | null,
    limit: number,
  ): Promise<{ facts: ConversionFact[]; reversals: ReversalFact[]; currencies: MetricCurrency[]; nextAfterId: string | null }> {
    const answer = await this.claim.listPaidConversions({ projectId, afterId: afterId ?? undefined, limit }).catch((error: unknown) => {
      if (!isServiceError(error)) throw error;
      const remote = readGrpcError(error);
      throw new UnavailableError(
        'CLAIM_UNAVAILABLE',
        `the claim service could not list conversions (${remote.message}); nothing was lost, try again`,
        remote.retryAfterSeconds,
      );
    });
    const currencies = new Map<string, MetricCurrency>();
    const reversals = answer.results.flatMap((conversion) =>
      conversion.reversals.map((reversal): ReversalFact => ({
        reversalId: reversal.reversalId,
        conversionId: conversion.id,
        shareBps: reversal.shareBps,
        volumeUsd: reversal.volumeUsd ?? null,
        revenueUsd: reversal.revenueUsd ?? null,
        affiliatePayout: BigInt(reversal.affiliatePayout || '0'),
        agencyPayout: BigInt(reversal.agencyPayout || '0'),
        // What it took back from each upper level, as its claim.conversion.reversed event's reversals[].level parts.
        levelPayouts: reversal.upline
          .map((level) => ({ level: level.level, payout: BigInt(level.amount || '0') }))
          .filter((part) => part.payout > 0n),
      })),
    );
    const facts = answer.results.map((conversion): ConversionFact => {
      const { currency } = conversion;
      if (currency)
        currencies.set(currency.id, {
          id: currency.id,
          chainId: currency.chainId,
          address: currency.address,
          name: currency.name,
          decimals: currency.decimals,
        });
      return {
        conversionId: conversion.id,
        name: conversion.name,
        status: conversion.status === ConversionStatus.NO_TERMS ? 'no_terms' : 'processed',
        occurredAt: conversion.occurredAt ?? new Date(0),
        // The claim service stores users in the canonical form it checked them in.
        user: {
          identifier: conversion.user?.identifier ?? '',
          identifierType: (conversion.user?.identifierType ?? '') as UserIdentifier['identifierType'],
        },
        affiliateId: conversion.affiliateId ?? null,
        masterId: conversion.affiliateId === undefined ? null : (conversion.masterId ?? null),
        spreadBps: conversion.affiliateId === undefined ? null : (conversion.masterSpreadBps ?? null),
        tierId: conversion.tierId ?? null,
        volumeUsd: conversion.volumeUsd ?? null,
        revenueUsd: conversion.revenueUsd ?? null,
        currencyId: currency?.id ?? null,
        affiliatePayout: BigInt(conversion.affiliatePayout || '0'),
        agencyPayout: BigInt(conversion.agencyPayout || '0'),
        // The frozen upline with each level's payout, as the processed event carries it (nobody's upline without an affiliate).
        upline:
          conversion.affiliateId === undefined
            ? []
            : conversion.upline.map((level) => ({
                level: level.level,
                affiliateId: level.affiliateId,
                payout: BigInt(level.affiliatePayout || '0'),
              })),
      };
    });
    return { facts, reversals, currencies: [...currencies.values()], nextAfterId: answer.nextAfterId ?? null };
  }
}
