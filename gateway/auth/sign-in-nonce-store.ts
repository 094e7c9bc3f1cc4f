import IORedis from 'ioredis';
import { withinMs } from '../../services/platform/deadline';
import { UnavailableError } from '../../services/rules/errors';
import type { Logger } from '../../services/platform/logger';

/** A sign-in message waiting for its signature. */
export interface PendingSignIn {
  /** Lowercase 0x address the message was issued for. */
  address: string;
  /** The exact EIP-4361 text issued; the signed message must be this, byte for byte. */
  message: string;
}

/** Longest a nonce command may take before sign-in answers 503 (Redis up but not answering). */
const COMMAND_TIMEOUT_MS = 2_000;

const unavailable = () =>
  new UnavailableError('SIGN_IN_UNAVAILABLE', 'wallet sign-in is unavailable right now (its store cannot be reached); try again in a few seconds');

/**
 * Issued sign-in nonces, in Redis with a TTL so abandoned ones disappear. Consuming is one
 * GETDEL: of two concurrent verifications with the same nonce exactly one gets it, so a nonce
 * works once across every gateway replica. With Redis away, sign-in answers 503 at once
 * (no offline queue, no retries): nothing can be issued or checked without the store.
 */
export class SignInNonceStore {
  private readonly redis: IORedis;
  private readonly prefix: string;

  constructor(redisUrl: string, prefix: string, logger: Logger) {
    this.prefix = `${prefix}:gateway:siwe-nonce:`;
    this.redis = new IORedis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS });
    this.redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error (sign-in nonces)'));
  }

  /** Waits (at most `timeoutMs`) for the first connection, so sign-in works as soon as the gateway listens. */
  async connected(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return (await withinMs(new Promise<void>((resolve) => this.redis.once('ready', () => resolve())), timeoutMs)) !== undefined;
  }

  async save(nonce: string, pending: PendingSignIn, ttlSeconds: number): Promise<void> {
    const stored = await this.command(() => this.redis.set(this.prefix + nonce, JSON.stringify(pending), 'EX', ttlSeconds, 'NX'));
    if (stored !== 'OK') throw new Error('a sign-in nonce was issued twice');
  }

  async consume(nonce: string): Promise<PendingSignIn | undefined> {
    const raw = await this.command(() => this.redis.getdel(this.prefix + nonce));
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as PendingSignIn;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') throw unavailable();
    try {
      return await run();
    } catch {
      // The connection dropped or stalled mid-command: the store cannot be trusted to have done it.
      throw unavailable();
    }
  }
}
