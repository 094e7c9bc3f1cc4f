/**
 * Signs claim-check vouchers with the configured signer keys: one EIP-712 signature per key, in
 * the order the keys are configured. The keys live only inside viem's local accounts; this class
 * keeps no copy, and neither its errors nor its printed form ever show one.
 */
import { inspect } from 'node:util';
import type { PrivateKeyAccount } from 'viem/accounts' with { 'resolution-mode': 'import' };
import {
  type Address,
  type ClaimCheckVoucher,
  claimCheckTypedData,
  type Hex,
  type SignedVoucher,
  UnsignableVoucherError,
  type VoucherDomain,
  voucherProblems,
} from '../domain/voucher';

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

export { UnsignableVoucherError };

export class VoucherSigner {
  private constructor(private readonly accounts: readonly PrivateKeyAccount[]) {}

  /** `keys`: 0x-prefixed 32-byte hex private keys, each of a distinct signer. */
  static async fromPrivateKeys(keys: readonly string[]): Promise<VoucherSigner> {
    if (keys.length === 0) throw new Error('at least one voucher signer key is required');
    // Name a bad key by its position only: its text may be most of a real key.
    keys.forEach((key, index) => {
      if (!PRIVATE_KEY.test(key)) throw new Error(`voucher signer key #${index + 1} is not a 0x-prefixed 32-byte hex private key`);
    });
    const { privateKeyToAccount } = await import('viem/accounts');
    const accounts = keys.map((key) => privateKeyToAccount(key as Hex));
    const addresses = accounts.map((account) => account.address.toLowerCase());
    if (new Set(addresses).size !== addresses.length) throw new Error('voucher signer keys must belong to distinct signers');
    return new VoucherSigner(accounts);
  }

  /** The signer addresses (public), to authorise on the contract and to show at start-up. */
  get addresses(): Address[] {
    return this.accounts.map((account) => account.address);
  }

  async sign(domain: VoucherDomain, voucher: ClaimCheckVoucher): Promise<SignedVoucher> {
    const problems = voucherProblems(voucher);
    if (problems.length > 0) throw new UnsignableVoucherError(problems);
    const typedData = claimCheckTypedData(domain, voucher);
    const signatures = await Promise.all(this.accounts.map((account) => account.signTypedData(typedData)));
    return { ...voucher, signatures };
  }

  toJSON(): { signers: Address[] } {
    return { signers: this.addresses };
  }

  [inspect.custom](): string {
    return `VoucherSigner { signers: [${this.addresses.join(', ')}] }`;
  }
}
