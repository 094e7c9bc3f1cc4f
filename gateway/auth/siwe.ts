import { randomBytes } from 'node:crypto';
import type { Clock } from '../../services/platform/clock';
import { invalidFields, UnauthenticatedError, UnavailableError } from '../../services/rules/errors';
import { ethereum } from './ethereum';
import type { SessionTokens, WalletSession } from './session-token';
import type { SignInNonceStore } from './sign-in-nonce-store';
import type { WalletSignatures } from './wallet-signatures';

export interface SiweOptions {
  /** RFC 3986 authority the wallet signs in to (SIWE_DOMAIN). */
  domain: string;
  uri: string;
  chainId: number;
  nonceTtlSeconds: number;
}

const STATEMENT = 'Sign in to the referral program. This request costs nothing and does not move funds.';

export interface IssuedSignIn {
  nonce: string;
  message: string;
  expiresAt: Date;
}

export interface SignedIn {
  token: string;
  session: WalletSession;
}

const refuse = (code: string, message: string) => new UnauthenticatedError(code, message);

/**
 * Sign-In with Ethereum (EIP-4361): the server writes the message, the wallet signs it
 * (EIP-191 personal_sign), the server checks it is the very message it issued, unexpired, for
 * this domain, signed by its address (its key, or a contract wallet's EIP-1271 on SIWE_CHAIN_ID when
 * that chain is in CHAIN_RPC_URLS), and answers with a short-lived session token. Every
 * verification attempt consumes the nonce, successful or not.
 */
export class SignInService {
  constructor(
    private readonly nonces: SignInNonceStore,
    private readonly sessions: SessionTokens,
    private readonly options: SiweOptions,
    private readonly clock: Clock,
    private readonly signatures: WalletSignatures,
  ) {}

  async start(address: string): Promise<IssuedSignIn> {
    const { createSiweMessage, getAddress, isAddress } = await ethereum();
    if (!isAddress(address, { strict: false })) {
      throw invalidFields([{ field: 'address', reason: 'must be an Ethereum address (0x followed by 40 hex digits)' }]);
    }
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = this.clock.now();
    const expiresAt = new Date(issuedAt.getTime() + this.options.nonceTtlSeconds * 1000);
    const message = createSiweMessage({
      address: getAddress(address),
      chainId: this.options.chainId,
      domain: this.options.domain,
      uri: this.options.uri,
      version: '1',
      nonce,
      issuedAt,
      expirationTime: expiresAt,
      statement: STATEMENT,
    });
    await this.nonces.save(nonce, { address: address.toLowerCase(), message }, this.options.nonceTtlSeconds);
    return { nonce, message, expiresAt };
  }

  async verify(message: string, signature: string): Promise<SignedIn> {
    const { parseSiweMessage, validateSiweMessage } = await ethereum();
    const fields = parseSiweMessage(message);
    if (!fields.nonce || !fields.address) {
      throw refuse('SIWE_MESSAGE_INVALID', 'the message is not a Sign-In with Ethereum message issued by this service');
    }
    const pending = await this.nonces.consume(fields.nonce);
    if (!pending) {
      throw refuse('SIWE_NONCE_INVALID', 'this sign-in message is unknown, expired or already used; request a new nonce');
    }
    if (pending.message !== message) {
      throw refuse('SIWE_MESSAGE_TAMPERED', 'the signed message differs from the one issued; sign the message exactly as issued');
    }
    const now = this.clock.now();
    if (fields.expirationTime && fields.expirationTime.getTime() <= now.getTime()) {
      throw refuse('SIWE_MESSAGE_EXPIRED', 'the sign-in message has expired; request a new nonce');
    }
    const valid =
      validateSiweMessage({ message: fields, domain: this.options.domain, nonce: fields.nonce, time: now }) &&
      fields.uri === this.options.uri &&
      fields.chainId === this.options.chainId &&
      fields.version === '1';
    if (!valid) throw refuse('SIWE_MESSAGE_INVALID', 'the sign-in message is not valid for this service (domain, URI, chain or time)');

    // The address's own key (EIP-191), or a contract wallet (EIP-1271) on the chain the message names.
    const proof = await this.signatures.verify({
      identifier: fields.address,
      identifierType: 'evm_address',
      message,
      signature,
      chainId: this.options.chainId,
    });
    if (proof.kind === 'unverifiable' && proof.retryable) throw new UnavailableError('CHAIN_UNAVAILABLE', `${proof.reason}; request a new nonce`);
    if (proof.kind !== 'valid') {
      const why = proof.kind === 'unverifiable' ? ` (${proof.reason})` : '';
      throw refuse('SIWE_SIGNATURE_INVALID', `the signature is not a signature of this message by its address${why}`);
    }
    return this.sessions.issue(pending.address);
  }
}
