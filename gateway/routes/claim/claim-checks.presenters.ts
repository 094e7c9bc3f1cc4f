import type {
  ClaimCheck,
  ClaimHistoryEntry,
  ClaimSettings,
  ClaimVoucher,
  CurrencyRef,
  CurrencyTotal,
  GetClaimCheckTotalsResponse,
  ListClaimHistoryResponse,
} from '../../../gen/referral/claim/v1/claim';
import type { PageInfo } from '../../../gen/referral/common/v1/common';
import type { z } from 'zod';
import { ClaimCheckStatus, ClaimReason } from '../../../gen/referral/claim/v1/enums';
import type { EnumName } from '../../../services/rules/enums';
import { PAYOUT_KIND_OF_REASON } from '../../../services/rules/payout-vocabulary';
import { count, nameOf, required } from '../../http/present';
import { type ClaimCheckListStatus, type claimCheckItemSchema, CLOSE_UNAVAILABLE_CODES } from './claim-checks.schemas';

/** gRPC messages -> the JSON the Fuul SDK reads (claim-checks.schemas.ts). */

const LIST_STATUS: Record<EnumName<typeof ClaimCheckStatus>, ClaimCheckListStatus> = {
  open: 'open',
  closed: 'unclaimed',
  claimed: 'claimed',
  expired: 'expired',
};

export const STATUS_OF_LIST_STATUS: Record<ClaimCheckListStatus, ClaimCheckStatus> = {
  open: ClaimCheckStatus.OPEN,
  unclaimed: ClaimCheckStatus.CLOSED,
  claimed: ClaimCheckStatus.CLAIMED,
  expired: ClaimCheckStatus.EXPIRED,
};

function currencyFields(currency: CurrencyRef | undefined) {
  const { address, chainId, name, decimals } = required(currency, 'currency');
  return { currency_address: address, currency_chain_id: chainId, currency_name: name, currency_decimals: decimals };
}

type ClaimCheckItem = z.output<typeof claimCheckItemSchema>;

/** A list item: a restricted one carries restriction_message and no deadline_seconds. */
export function presentClaimCheck(check: ClaimCheck): ClaimCheckItem {
  // One literal and one plain assignment, no spread: a list page presents dozens of these per request
  // (bench/README.md, "Object spreads per list item"). The keys keep their order: the common ones, then the one that differs.
  const { address, chainId, name, decimals } = required(check.currency, 'currency');
  const item: ClaimCheckItem = {
    id: check.id,
    currency_address: address,
    currency_chain_id: chainId,
    currency_name: name,
    currency_decimals: decimals,
    reason: PAYOUT_KIND_OF_REASON[nameOf(ClaimReason, check.reason, 'reason')],
    amount: check.amount,
    status: LIST_STATUS[nameOf(ClaimCheckStatus, check.status, 'status')],
    created_at: required(check.createdAt, 'created_at').toISOString(),
  };
  if (check.restrictionMessage !== undefined) item.restriction_message = check.restrictionMessage;
  else item.deadline_seconds = check.deadline === undefined ? null : count(check.deadline, 'deadline');
  if (check.closeUnavailable !== undefined) item.close_unavailable = closeUnavailable(check.closeUnavailable);
  return item;
}

function closeUnavailable(code: string): NonNullable<ClaimCheckItem['close_unavailable']> {
  const known = CLOSE_UNAVAILABLE_CODES.find((value) => value === code);
  if (!known) throw new Error(`close_unavailable: unknown code ${code}`);
  return known;
}

/** A ClaimResponse: a restricted one carries restriction_message and no deadline, proof or signatures. */
export function presentClaimResponse(voucher: ClaimVoucher) {
  const common = {
    id: voucher.id,
    project_address: voucher.projectAddress,
    to: voucher.to,
    currency: voucher.currency,
    currency_type: voucher.currencyType,
    amount: voucher.amount,
    reason: voucher.reason,
    token_id: voucher.tokenId,
    chain_id: count(voucher.chainId, 'chain_id'),
  };
  if (voucher.restrictionMessage !== undefined) return { ...common, restriction_message: voucher.restrictionMessage };
  return {
    ...common,
    deadline: count(required(voucher.deadline, 'deadline'), 'deadline'),
    proof: required(voucher.proof, 'proof'),
    signatures: voucher.signatures,
    claim_manager: required(voucher.claimManager, 'claim_manager'),
  };
}

function presentTotal(total: CurrencyTotal) {
  return { ...currencyFields(total.currency), amount: total.amount };
}

export function presentTotals(totals: GetClaimCheckTotalsResponse) {
  return {
    claimed: totals.claimed.map(presentTotal),
    unclaimed: totals.unclaimed.map(presentTotal),
    pending: totals.pending.map(presentTotal),
    debt: totals.debt.map(presentTotal),
  };
}

function presentHistoryEntry(entry: ClaimHistoryEntry) {
  return {
    hash: entry.transactionHash,
    claimed_at: required(entry.claimedAt, 'claimed_at').toISOString(),
    ...currencyFields(entry.currency),
    amount: entry.amount,
  };
}

/** The SDK's page shape: total_count, and next_page while rows follow. */
export function presentHistory(history: ListClaimHistoryResponse) {
  const info: PageInfo = required(history.pageInfo, 'page_info');
  const total = count(info.totalResults, 'total_results');
  return {
    results: history.results.map(presentHistoryEntry),
    total_count: total,
    next_page: info.page * info.pageSize < total ? info.page + 1 : null,
  };
}

export function presentClaimSettings(settings: ClaimSettings) {
  return { project_address: settings.projectAddress, updated_at: required(settings.updatedAt, 'updated_at').toISOString() };
}
