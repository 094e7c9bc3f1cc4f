import { encodeFunctionData, type Hex } from 'viem';
import type { ApiResult } from '../../api/client';

export type Voucher = ApiResult<'/api/v1/claim-checks/claim', 'post'>[number];

/** ClaimManager.claim(ClaimCheck[]): the entry Fuul v2's IFuulManager names, the only one the portal calls. */
const claimAbi = [
  {
    type: 'function',
    name: 'claim',
    stateMutability: 'nonpayable',
    outputs: [],
    inputs: [
      {
        name: 'claimChecks',
        type: 'tuple[]',
        components: [
          { name: 'projectAddress', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'currency', type: 'address' },
          { name: 'currencyType', type: 'uint8' },
          { name: 'amount', type: 'uint256' },
          { name: 'reason', type: 'uint8' },
          { name: 'tokenId', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'proof', type: 'bytes32' },
          { name: 'signatures', type: 'bytes[]' },
        ],
      },
    ],
  },
] as const;

/**
 * A voucher the wallet can redeem: signed, not held by the tax gate. (The API lists only vouchers
 * before their deadline, by the chain's time; the browser's clock is not asked.)
 */
export function isRedeemable(voucher: Voucher): boolean {
  return !voucher.restriction_message && Boolean(voucher.proof && voucher.signatures?.length);
}

/** The calldata of one claim transaction redeeming the vouchers exactly as the API signed them. */
export function claimCalldata(vouchers: Voucher[]): Hex {
  return encodeFunctionData({
    abi: claimAbi,
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
