/**
 * A claim-check voucher: Fuul v2's `ClaimCheck` struct and the EIP-712 typed data the
 * claim service's signers sign for it. The struct and its EIP-712 types come from the compiled
 * contract (contracts/generated/claim-manager.ts); contracts/ClaimManager.sol verifies exactly this,
 * its CLAIM_CHECK_TYPEHASH and `hashClaimCheck` being the other half.
 */
import { randomBytes } from 'node:crypto';
import { type ClaimCheck, claimCheckTypes } from '../../../contracts/generated/claim-manager';
import { MAX_AMOUNT } from '../../rules/money';

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

/** `IFuulManager.ClaimReason`. */
export const ClaimReason = { affiliate: 0, endUser: 1, agency: 2 } as const;
export type ClaimReason = (typeof ClaimReason)[keyof typeof ClaimReason];

/** `IFuulProject.TokenType`; the contract pays the fungible two (2 and 3 are NFTs). */
export const CurrencyType = { native: 0, erc20: 1 } as const;
export type CurrencyType = (typeof CurrencyType)[keyof typeof CurrencyType];

/** The currency address of a chain's native token. */
export const NATIVE_CURRENCY: Address = '0x0000000000000000000000000000000000000000';

/** Per chain, from configuration; `verifyingContract` is the deployed ClaimManager. */
export interface VoucherDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/**
 * The signed fields of the struct (contracts/generated/claim-manager.ts), with its enums as ours:
 * a voucher with its signatures is the `claim([...])` argument as it is. `deadline` is in unix
 * seconds (the contract accepts the voucher while block.timestamp <= deadline); `proof` is unique per
 * voucher (the contract redeems a proof once).
 */
export type ClaimCheckVoucher = Omit<ClaimCheck, 'signatures' | 'currencyType' | 'reason'> & { currencyType: CurrencyType; reason: ClaimReason };

export interface SignedVoucher extends ClaimCheckVoucher {
  signatures: Hex[];
}

/** The argument of viem's signTypedData / hashTypedData for one voucher. */
export function claimCheckTypedData(domain: VoucherDomain, voucher: ClaimCheckVoucher) {
  // Only the fields the types name: a signed voucher also carries its signatures, which are not signed.
  const message = Object.fromEntries(claimCheckTypes.ClaimCheck.map(({ name }) => [name, voucher[name]])) as ClaimCheckVoucher;
  return {
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: domain.verifyingContract },
    types: claimCheckTypes,
    primaryType: 'ClaimCheck' as const,
    message,
  };
}

/** Deadline = close time + CLAIM_VOUCHER_TTL_SECONDS, in whole unix seconds. */
export function voucherDeadline(closedAt: Date, ttlSeconds: number): bigint {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) throw new RangeError('the voucher TTL must be a positive whole number of seconds');
  return BigInt(Math.floor(closedAt.getTime() / 1000) + ttlSeconds);
}

/** 32 random bytes: a proof nobody can guess or repeat. */
export function newProof(): Hex {
  return `0x${randomBytes(32).toString('hex')}`;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
/** A uint256: 2^256 − 1 is also the largest amount (services/rules/money.ts). */
const MAX_UINT256 = MAX_AMOUNT;

/** A voucher the contract would refuse whatever its signatures (voucherProblems); nothing was signed. */
export class UnsignableVoucherError extends Error {
  override readonly name = 'UnsignableVoucherError';

  constructor(readonly problems: string[]) {
    super(`voucher not signed: ${problems.join('; ')}`);
  }
}

/**
 * What the contract would refuse regardless of signatures, found before signing: a voucher that can
 * never be redeemed must not be handed out. Returns the problems (empty when the voucher is sound).
 */
export function voucherProblems(voucher: ClaimCheckVoucher): string[] {
  const problems: string[] = [];
  for (const field of ['projectAddress', 'to', 'currency'] as const) {
    if (!ADDRESS.test(voucher[field])) problems.push(`${field} must be a 20-byte hex address`);
  }
  const isZero = (address: Address) => address.toLowerCase() === NATIVE_CURRENCY;
  if (isZero(voucher.projectAddress)) problems.push('projectAddress must not be the zero address');
  if (isZero(voucher.to)) problems.push('to must not be the zero address');
  const isNative = isZero(voucher.currency);
  if (voucher.currencyType === CurrencyType.native && !isNative) problems.push('a native voucher pays currency 0x0…0');
  else if (voucher.currencyType === CurrencyType.erc20 && isNative) problems.push('an erc20 voucher needs the token address as currency');
  else if (voucher.currencyType !== CurrencyType.native && voucher.currencyType !== CurrencyType.erc20)
    problems.push('currencyType must be 0 (native) or 1 (erc20)');
  if (!Object.values(ClaimReason).includes(voucher.reason)) problems.push('reason must be 0 (affiliate), 1 (end user) or 2 (agency)');
  if (voucher.amount <= 0n || voucher.amount > MAX_UINT256) problems.push('amount must be a positive uint256');
  if (voucher.tokenId !== 0n) problems.push('tokenId must be 0 for fungible currencies');
  if (voucher.deadline <= 0n || voucher.deadline > MAX_UINT256) problems.push('deadline must be a positive uint256 of unix seconds');
  if (!BYTES32.test(voucher.proof)) problems.push('proof must be 32 bytes of hex');
  return problems;
}
