import type { ClaimCheck, ClaimHistoryEntry, ClaimSettings, ClaimVoucher, CurrencyTotal } from '../../../gen/referral/claim/v1/claim';
import { ClaimCheckStatus, ClaimReason } from '../../../gen/referral/claim/v1/enums';
import { enumValue } from '../../rules/enums';
import type { ClaimCheckView, ClaimRow } from '../domain/claim-check.service';
import type { ClaimHistoryRecord, CurrencyTotalRecord } from '../repositories/claim-check.repository';
import type { ClaimSettingsRecord } from '../repositories/claim-settings.repository';
import { toCurrencyRef } from './claim.mappers';

/** Claim-check records -> protobuf messages; a restricted check or row carries no deadline, proof or signatures. */
export function toClaimCheckMessage(check: ClaimCheckView): ClaimCheck {
  return {
    id: check.id,
    currency: toCurrencyRef(check.currency),
    reason: enumValue(ClaimReason, check.reason),
    amount: check.amount.toString(),
    status: enumValue(ClaimCheckStatus, check.status),
    deadline: check.restriction === null && check.deadline !== null ? check.deadline.toString() : undefined,
    createdAt: check.createdAt,
    restrictionMessage: check.restriction ?? undefined,
    closeUnavailable: check.closeUnavailable ?? undefined,
  };
}

export function toClaimVoucherMessage(row: ClaimRow): ClaimVoucher {
  return {
    id: row.claimCheckId,
    projectAddress: row.projectAddress,
    to: row.to,
    currency: row.currency,
    currencyType: row.currencyType,
    amount: row.amount.toString(),
    reason: row.reason,
    tokenId: row.tokenId.toString(),
    deadline: row.signed?.deadline.toString(),
    proof: row.signed?.proof,
    signatures: row.signed?.signatures ?? [],
    restrictionMessage: row.restriction ?? undefined,
    chainId: row.chainId.toString(),
    claimManager: row.claimManager ?? undefined,
  };
}

export function toCurrencyTotalMessage(total: CurrencyTotalRecord): CurrencyTotal {
  return { currency: toCurrencyRef(total.currency), amount: total.amount.toString() };
}

export function toClaimHistoryMessage(entry: ClaimHistoryRecord): ClaimHistoryEntry {
  return {
    transactionHash: entry.transactionHash,
    claimedAt: entry.claimedAt,
    currency: toCurrencyRef(entry.currency),
    amount: entry.amount.toString(),
  };
}

export function toClaimSettingsMessage(settings: ClaimSettingsRecord): ClaimSettings {
  return { projectAddress: settings.projectAddress, updatedAt: settings.updatedAt };
}
