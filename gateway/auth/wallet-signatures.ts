import { createHash } from 'node:crypto';
import { HttpError } from '../http/errors';
import { type ChainAccess, ContractWallets } from './contract-wallets';
import { decodeBase58, decodePublicKey, decodeStellarPublicKey, ED25519_PUBLIC_KEY_BYTES, verifyEd25519 } from './ed25519';
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
 * configured RPC URL), with the reason in the program's words, and `retryable` when the cause is
 * passing (the wallet's chain did not answer). Routes answer the last two with a 4xx, or a 503 when retryable.
 */
export type ProofResult = { kind: 'valid' } | { kind: 'invalid' } | { kind: 'unverifiable'; reason: string; retryable?: boolean };

const VALID: ProofResult = { kind: 'valid' };
const INVALID: ProofResult = { kind: 'invalid' };
const SEP53_PREFIX = 'Stellar Signed Message:\n';

/**
 * Wallet signatures of a fixed message, as the @fuul/sdk's self-service calls send them: creating an
 * affiliate code (the message is ours, from a configurable template), using a referral code, a
 * connect_wallet event, signing in (the message is the client's or SIWE's). docs/affiliates.md#signatures
 * says what each kind of wallet signs and how:
 * - evm_address: the key's own EIP-191 signature; otherwise a contract wallet's (EIP-1271
 *   isValidSignature, or ERC-6492 before it is deployed) on the chain `chainId` names, which must be
 *   in CHAIN_RPC_URLS, or, without `chainId`, on any chain of CHAIN_RPC_URLS;
 * - solana_address: the ed25519 signature of the message's UTF-8 bytes by the key the address is;
 * - stellar_address: the ed25519 signature by the account's key of the message as SEP-53 signs it
 *   (SHA-256 of "Stellar Signed Message:\n" + message), or of the message itself;
 * with a signature in hex, base58 or base64 for ed25519, and `publicKey` (optional) naming the same key.
 */
export class WalletSignatures {
  private readonly contracts: ContractWallets;

  constructor(
    private readonly codeCreationTemplate: string,
    chains: ChainAccess = { rpcUrls: new Map(), timeoutMs: 5_000 },
  ) {
    this.contracts = new ContractWallets(chains);
  }

  /** The exact message a wallet signs to create `code`. */
  codeCreationMessage(code: string): string {
    return this.codeCreationTemplate.split('{code}').join(code);
  }

  /** Whether the proof's wallet signed its message. */
  async verify(proof: WalletProof): Promise<ProofResult> {
    switch (proof.identifierType) {
      case 'evm_address':
        return this.verifyEvm(proof);
      case 'solana_address':
        return verifyEd25519Proof(proof, decodeSolanaAddress(proof.identifier), [Buffer.from(proof.message, 'utf8')]);
      case 'stellar_address':
        return verifyEd25519Proof(proof, decodeStellarPublicKey(proof.identifier), [
          createHash('sha256')
            .update(SEP53_PREFIX + proof.message, 'utf8')
            .digest(),
          Buffer.from(proof.message, 'utf8'),
        ]);
      default:
        return {
          kind: 'unverifiable',
          reason: `signatures of ${proof.identifierType} wallets cannot be checked here (evm_address, solana_address and stellar_address can)`,
        };
    }
  }

  private async verifyEvm(proof: WalletProof): Promise<ProofResult> {
    const { verifyMessage, isAddress } = await ethereum();
    const { identifier: address, message, signature, chainId } = proof;
    if (!isAddress(address, { strict: false }) || !/^0x[0-9a-fA-F]+$/.test(signature)) return INVALID;
    const hex = signature as `0x${string}`;
    // The key's own signature needs no chain.
    if (await verifyMessage({ address, message, signature: hex }).catch(() => false)) return VALID;
    if (chainId !== undefined && !this.contracts.has(chainId)) {
      return {
        kind: 'unverifiable',
        reason:
          `the signature is not ${address}'s own (EIP-191), and a contract wallet's (EIP-1271) cannot be checked here: ` +
          `chain ${chainId} is not configured (CHAIN_RPC_URLS)`,
      };
    }
    const chains = chainId === undefined ? this.contracts.chainIds() : [chainId];
    const verdicts = await Promise.all(chains.map((chain) => this.contracts.verify(chain, address, message, hex)));
    if (verdicts.includes('valid')) return VALID;
    const unreachable = chains.filter((_, index) => verdicts[index] === 'unreachable');
    if (unreachable.length === 0) return INVALID;
    return {
      kind: 'unverifiable',
      retryable: true,
      reason: `the wallet's chain did not answer (chain ${unreachable.join(', ')}): its contract wallet signature could not be checked; try again shortly`,
    };
  }
}

/** A Solana address is its base58 ed25519 public key. */
function decodeSolanaAddress(address: string): Uint8Array | undefined {
  const key = decodeBase58(address);
  return key?.length === ED25519_PUBLIC_KEY_BYTES ? key : undefined;
}

/** ed25519: `key` (from the identifier) signed one of `payloads`; `publicKey`, when sent, must be that key. */
function verifyEd25519Proof(proof: WalletProof, key: Uint8Array | undefined, payloads: Uint8Array[]): ProofResult {
  if (!key) return INVALID;
  if (proof.publicKey !== undefined && !decodePublicKey(proof.publicKey).some((sent) => Buffer.from(sent).equals(key))) return INVALID;
  return payloads.some((payload) => verifyEd25519(key, payload, proof.signature)) ? VALID : INVALID;
}

/**
 * The one answer of every route that checks a wallet's signature: 400 INVALID_SIGNATURE with the
 * message the @fuul/sdk matches (`invalid signature`, its InvalidSignatureError), or 422
 * SIGNATURE_UNVERIFIABLE when it cannot be checked here, or 503 CHAIN_UNAVAILABLE (with Retry-After)
 * when the contract wallet's chain did not answer in time.
 */
export async function requireWalletProof(signatures: WalletSignatures, proof: WalletProof): Promise<void> {
  const result = await signatures.verify(proof);
  if (result.kind === 'valid') return;
  if (result.kind === 'invalid') throw new HttpError(400, 'INVALID_SIGNATURE', 'invalid signature');
  if (result.retryable) throw new HttpError(503, 'CHAIN_UNAVAILABLE', result.reason);
  throw new HttpError(422, 'SIGNATURE_UNVERIFIABLE', result.reason);
}
