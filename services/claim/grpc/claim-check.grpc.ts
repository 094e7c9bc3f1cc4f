import type { ClaimServiceServer } from '../../../gen/referral/claim/v1/claim';
import { ClaimCheckStatus } from '../../../gen/referral/claim/v1/enums';
import { optionalEnum, requireField } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { ClaimDomain } from '../composition';
import {
  toClaimCheckMessage,
  toClaimHistoryMessage,
  toClaimSettingsMessage,
  toClaimVoucherMessage,
  toCurrencyTotalMessage,
} from './claim-check.mappers';

type ClaimCheckRpc =
  | 'listClaimChecks'
  | 'closeClaimChecks'
  | 'listClaimableVouchers'
  | 'getClaimCheckTotals'
  | 'listClaimHistory'
  | 'getClaimSettings'
  | 'putClaimSettings';

/** The claim-check half of ClaimService (createClaimGrpcService adds them): translate and delegate. */
export function claimCheckHandlers(domain: ClaimDomain): Pick<UnaryHandlers<ClaimServiceServer>, ClaimCheckRpc> {
  return {
    listClaimChecks: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.claimChecks.list(
        req.projectId,
        requireField(req.user, 'user'),
        optionalEnum(ClaimCheckStatus, req.status, 'status'),
        page,
      );
      return { results: records.map(toClaimCheckMessage), pageInfo: pageInfo(page, total) };
    },

    closeClaimChecks: async (req) => ({
      results: (await domain.claimChecks.close(req.projectId, requireField(req.user, 'user'), req.claimCheckIds)).map(toClaimVoucherMessage),
    }),

    listClaimableVouchers: async (req) => ({
      results: (await domain.claimChecks.claimable(req.projectId, requireField(req.user, 'user'))).map(toClaimVoucherMessage),
    }),

    getClaimCheckTotals: async (req) => {
      const totals = await domain.claimChecks.totals(req.projectId, requireField(req.user, 'user'));
      return {
        claimed: totals.claimed.map(toCurrencyTotalMessage),
        unclaimed: totals.unclaimed.map(toCurrencyTotalMessage),
        pending: totals.pending.map(toCurrencyTotalMessage),
        debt: totals.debt.map(toCurrencyTotalMessage),
      };
    },

    listClaimHistory: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.claimChecks.history(req.projectId, requireField(req.user, 'user'), page);
      return { results: records.map(toClaimHistoryMessage), pageInfo: pageInfo(page, total) };
    },

    getClaimSettings: async (req) => toClaimSettingsMessage(await domain.claimSettings.get(req.projectId)),

    putClaimSettings: async (req) => toClaimSettingsMessage(await domain.claimSettings.put(req.projectId, req.projectAddress)),
  };
}
