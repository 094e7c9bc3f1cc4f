import { ethereum } from './ethereum';

/**
 * Plain EIP-191 (personal_sign) signatures of a fixed message, as the @fuul/sdk's self-service calls
 * send them: creating an affiliate code (the message is ours, from a configurable template) and
 * using a referral code (the message is the client's, and must name the code). Only externally owned
 * accounts are verified (no EIP-1271 contract wallets: that would need a chain).
 */
export class WalletSignatures {
  constructor(private readonly codeCreationTemplate: string) {}

  /** The exact message a wallet signs to create `code`. */
  codeCreationMessage(code: string): string {
    return this.codeCreationTemplate.split('{code}').join(code);
  }

  /** True when `signature` is `address`'s signature of `message`; a malformed signature is simply not one. */
  async isSignedBy(address: string, message: string, signature: string): Promise<boolean> {
    const { verifyMessage, isAddress } = await ethereum();
    if (!isAddress(address, { strict: false }) || !/^0x[0-9a-fA-F]+$/.test(signature)) return false;
    return verifyMessage({ address, message, signature: signature as `0x${string}` }).catch(() => false);
  }
}
