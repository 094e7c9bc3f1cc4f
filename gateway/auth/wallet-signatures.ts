import { HttpError } from '../http/errors';
import { ethereum } from './ethereum';

/**
 * What a caller sends to prove that a wallet signed a message, in the @fuul/sdk's fields:
 * `identifierType` is the user's (evm_address, solana_address, ...), `publicKey` its
 * `signature_public_key`, `chainId` its `account_chain_id` (where a contract wallet lives).
 */
export interface WalletProof {
  identifier: string;
  identifierType: string;
  message: string;
  signature: string;
  publicKey?: string;
  chainId?: number;
}

/**
 * How a proof came out: `valid`; `invalid` (the wallet did not sign it, or the signature is
 * malformed); `unverifiable` (it cannot be checked here, e.g. a contract wallet on a chain with no
 * configured RPC URL), with the reason in the program's words. Routes answer the last two with a 4xx.
 */
export type ProofResult = { kind: 'valid' } | { kind: 'invalid' } | { kind: 'unverifiable'; reason: string };

/**
 * Wallet signatures of a fixed message, as the @fuul/sdk's self-service calls send them: creating an
 * affiliate code (the message is ours, from a configurable template), using a referral code, a
 * connect_wallet event (the message is the client's). Only externally owned EVM accounts (EIP-191)
 * are verified for now.
 */
export class WalletSignatures {
  constructor(private readonly codeCreationTemplate: string) {}

  /** The exact message a wallet signs to create `code`. */
  codeCreationMessage(code: string): string {
    return this.codeCreationTemplate.split('{code}').join(code);
  }

  /** Whether the proof's wallet signed its message. */
  async verify(proof: WalletProof): Promise<ProofResult> {
    if (proof.identifierType !== 'evm_address') {
      return { kind: 'unverifiable', reason: `signatures of ${proof.identifierType} wallets cannot be checked` };
    }
    return (await this.isSignedBy(proof.identifier, proof.message, proof.signature)) ? { kind: 'valid' } : { kind: 'invalid' };
  }

  /** True when `signature` is `address`'s EIP-191 signature of `message`; a malformed signature is simply not one. */
  async isSignedBy(address: string, message: string, signature: string): Promise<boolean> {
    const { verifyMessage, isAddress } = await ethereum();
    if (!isAddress(address, { strict: false }) || !/^0x[0-9a-fA-F]+$/.test(signature)) return false;
    return verifyMessage({ address, message, signature: signature as `0x${string}` }).catch(() => false);
  }
}

/**
 * The one answer of every route that checks a wallet's signature: 400 INVALID_SIGNATURE with the
 * message the @fuul/sdk matches (`invalid signature`, its InvalidSignatureError), or 422
 * SIGNATURE_UNVERIFIABLE when it cannot be checked here (never a 5xx).
 */
export async function requireWalletProof(signatures: WalletSignatures, proof: WalletProof): Promise<void> {
  const result = await signatures.verify(proof);
  if (result.kind === 'valid') return;
  if (result.kind === 'invalid') throw new HttpError(400, 'INVALID_SIGNATURE', 'invalid signature');
  throw new HttpError(422, 'SIGNATURE_UNVERIFIABLE', result.reason);
}
