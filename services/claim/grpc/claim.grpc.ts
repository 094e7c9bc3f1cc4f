import type { ClaimServiceServer, Reward } from '../../../gen/referral/claim/v1/claim';
import { ConversionStatus, CurrencyFamily, CurrencyType, LeaderboardUserType, MovementStatus } from '../../../gen/referral/claim/v1/enums';
import { optionalEnum, requireEnum, requireField } from '../../rules/fields';
import { implementService } from '../../platform/grpc/service';
import type { Logger } from '../../platform/logger';
import { pageInfo, toPage } from '../../rules/pagination';
import type { ClaimDomain } from '../composition';
import type { RewardInput } from '../domain/reward';
import {
  toConversionMessage,
  toPaidConversionMessage,
  toCurrencyMessage,
  toCurrencyRef,
  toPointBalanceMessage,
  toLeaderboardEntryMessage,
  toMovementDecisionMessage,
  toMovementMessage,
  toPayoutSumMessage,
  toPayoutTermsMessage,
  toReconciliationMessage,
  toReferredUserPayoutsMessage,
  toReversalMessage,
  toSubmissionMessage,
} from './claim.mappers';
import { claimCheckHandlers } from './claim-check.grpc';
import { reviewHandlers } from './review.grpc';

/** proto3's oneof as the domain checks it (neither or both set are refused there, naming the field). */
function rewardInput(reward: Reward | undefined): RewardInput | undefined {
  return reward && { fixed: reward.fixed, bps: reward.bps };
}

/** The rewards of referral levels 2..4 of a request or one of its tiers. */
function uplineInput(message: { affiliate2?: Reward | undefined; affiliate3?: Reward | undefined; affiliate4?: Reward | undefined }) {
  return { affiliate2: rewardInput(message.affiliate2), affiliate3: rewardInput(message.affiliate3), affiliate4: rewardInput(message.affiliate4) };
}

/**
 * Translates protobuf <-> domain and delegates; no rules live here. Fields the contract requires
 * are resolved here (services/rules/fields.ts), so the domain takes them as given.
 */
export function createClaimGrpcService(domain: ClaimDomain, logger: Logger): ClaimServiceServer {
  return implementService<ClaimServiceServer>(
    'ClaimService',
    {
      createCurrency: async (req) =>
        toCurrencyMessage(
          await domain.currencies.create(req.projectId, {
            // proto3 has no absent scalar: 0 and "" say "none" (a point currency's).
            chainId: req.chainId === '0' ? undefined : req.chainId,
            address: req.address === '' ? undefined : req.address,
            name: req.name,
            decimals: req.decimals,
            type: optionalEnum(CurrencyType, req.type, 'type'),
          }),
        ),

      listCurrencies: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.currencies.list(req.projectId, page);
        return { results: records.map(toCurrencyMessage), pageInfo: pageInfo(page, total) };
      },

      putPayoutTerms: async (req) => {
        const { record, created } = await domain.terms.put(req.projectId, req.conversionName, {
          currencyId: req.currencyId,
          endUser: rewardInput(req.endUser),
          affiliate: rewardInput(req.affiliate),
          ...uplineInput(req),
          tiers: req.tiers.map((tier) => ({ audienceId: tier.audienceId, affiliate: rewardInput(tier.affiliate), ...uplineInput(tier) })),
          endUserAllowlistAudienceId: req.endUserAllowlistAudienceId,
          affiliateAllowlistAudienceId: req.affiliateAllowlistAudienceId,
          holdDays: req.holdDays,
          requireApproval: req.requireApproval,
          caps: req.caps,
        });
        return { terms: toPayoutTermsMessage(record), created };
      },

      getPayoutTerms: async (req) => toPayoutTermsMessage(await domain.terms.get(req.projectId, req.conversionName)),

      listPayoutTerms: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.terms.list(req.projectId, page);
        return { results: records.map(toPayoutTermsMessage), pageInfo: pageInfo(page, total) };
      },

      deletePayoutTerms: async (req) => {
        await domain.terms.delete(req.projectId, req.conversionName);
        return {};
      },

      submitConversion: async (req) =>
        toSubmissionMessage(await domain.conversions.submitOne(req.projectId, requireField(req.conversion, 'conversion'), req.projectCreatedAt)),

      submitConversions: async (req) => ({
        results: (await domain.conversions.submitMany(req.projectId, req.conversions, req.projectCreatedAt)).map(toSubmissionMessage),
      }),

      getConversion: async (req) => {
        const conversion = await domain.ledger.conversion(req.projectId, req.id);
        return toConversionMessage(conversion, await domain.reversals.ofConversion(req.projectId, req.id));
      },

      reverseConversion: async (req) => {
        const { reversal, replayed } = await domain.reversals.reverse(req.projectId, {
          conversionId: req.conversionId,
          reversalId: req.reversalId,
          reason: req.reason,
          shareBps: req.shareBps,
          reversedBy: req.reversedBy,
        });
        return { reversal: toReversalMessage(reversal), replayed };
      },

      listConversions: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.ledger.conversions(
          req.projectId,
          { status: optionalEnum(ConversionStatus, req.status, 'status'), name: req.name, user: req.user },
          page,
        );
        return { results: records.map((record) => toConversionMessage(record)), pageInfo: pageInfo(page, total) };
      },

      listPaidConversions: async (req) => {
        const { records, nextAfterId } = await domain.paidConversions.page(req.projectId, req.afterId ?? null, req.limit);
        return { results: records.map(toPaidConversionMessage), nextAfterId: nextAfterId ?? undefined };
      },

      listMovements: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.ledger.movementsOf(
          req.projectId,
          requireField(req.user, 'user'),
          optionalEnum(MovementStatus, req.status, 'status'),
          page,
          { from: req.from, to: req.to },
          optionalEnum(CurrencyFamily, req.family, 'family'),
        );
        return { results: records.map(toMovementMessage), pageInfo: pageInfo(page, total) };
      },

      sumUserPayouts: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.ledger.payoutSums(
          req.projectId,
          requireField(req.user, 'user'),
          { from: req.from, to: req.to },
          page,
          optionalEnum(CurrencyFamily, req.family, 'family'),
        );
        return { results: records.map(toPayoutSumMessage), pageInfo: pageInfo(page, total) };
      },

      listReferredUserPayouts: async (req) => {
        const records = await domain.ledger.referredUsers(req.projectId, requireField(req.affiliate, 'affiliate'), { from: req.from, to: req.to });
        return { results: records.map(toReferredUserPayoutsMessage) };
      },

      listPointBalances: async (req) => {
        const page = toPage(req.page);
        const { currency, records, total } = await domain.points.balances(req.projectId, req.user, page);
        return { results: records.map(toPointBalanceMessage), pageInfo: pageInfo(page, total), currency: toCurrencyRef(currency) };
      },

      getPayoutsLeaderboard: async (req) => {
        const page = toPage(req.page);
        const board = await domain.ledger.leaderboard(
          req.projectId,
          {
            currencyAddress: req.currencyAddress,
            chainId: req.chainId,
            userType: requireEnum(LeaderboardUserType, req.userType, 'user_type'),
            user: req.user,
            from: req.from,
            to: req.to,
            points: req.points,
          },
          page,
        );
        return {
          results: board.records.map((entry) => toLeaderboardEntryMessage(entry, board.currency.chainId ?? 0n)),
          pageInfo: pageInfo(page, board.total),
          calculatedAt: board.calculatedAt,
          freshUntil: board.freshUntil,
          decimals: board.currency.decimals,
        };
      },

      approveMovements: async (req) => ({
        results: (await domain.decisions.approve(req.projectId, req.conversionIds, req.reason, req.decidedBy)).map(toMovementDecisionMessage),
      }),

      declineMovements: async (req) => ({
        results: (await domain.decisions.decline(req.projectId, req.conversionIds, req.reason, req.decidedBy)).map(toMovementDecisionMessage),
      }),

      getReconciliation: async (req) => toReconciliationMessage(await domain.reconciliation.get(req.projectId, req.currencyId)),

      ...claimCheckHandlers(domain),
      ...reviewHandlers(domain),
    },
    logger,
    // Conversions of one batch are independent: each is checked alone (ConversionService), so one bad item fails alone.
    { idsCheckedPerItem: { submitConversions: 'conversions' } },
  );
}
