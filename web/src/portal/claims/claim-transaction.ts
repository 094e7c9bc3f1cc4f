import { encodeFunctionData, type Hex } from 'viem';
import { claimManagerAbi } from '../../../../contracts/generated/claim-manager';
import type { ApiResult } from '../../api/client';

export type Voucher = ApiResult<'/api/v1/claim-checks/claim', 'post'>[number];

/**
 * A voucher the wallet can redeem: signed, not held by the tax gate. (The API lists only vouchers
 * before their deadline, by the chain's time; the browser's clock is not asked.)
 */
export function isRedeemable(voucher: Voucher): boolean {
  return !voucher.restriction_message && Boolean(voucher.proof && voucher.signatures?.length);
}

/**
 * The calldata of one ClaimManager.claim(ClaimCheck[]) transaction (the entry Fuul v2's IFuulManager
 * names, the only one the portal calls) redeeming the vouchers exactly as the API signed them. The
 * ABI is the contract's own, generated from it (contracts/generated/claim-manager.ts).
 */
export function claimCalldata(vouchers: Voucher[]): Hex {
  return encodeFunctionData({
    abi: claimManagerAbi,
    functionName: 'claim',
    args: [
      vouchers.map((voucher) => ({
        projectAddress: voucher.project_address as Hex,
        to: voucher.to as Hex,
        currency: voucher.currency as Hex,
        currencyType: voucher.currency_type,
        amount: BigInt(voucher.amount),
        reason: voucher.reason,
        tokenId: BigInt(voucher.token_id),
        deadline: BigInt(voucher.deadline!),
        proof: voucher.proof as Hex,
        signatures: voucher.signatures as Hex[],
      })),
    ],
  });
}
