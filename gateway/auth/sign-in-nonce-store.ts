import IORedis from 'ioredis';
import type { Logger } from '../../services/common/logger';

/** A sign-in message waiting for its signature. */
export interface PendingSignIn {
  /** Lowercase 0x address the message was issued for. */
  address: string;
  /** The exact EIP-4361 text issued; the signed message must be this, byte for byte. */
  message: string;
}

/**
 * Issued sign-in nonces, in Redis with a TTL so abandoned ones disappear. Consuming is one
 * GETDEL: of two concurrent verifications with the same nonce exactly one gets it, so a nonce
 * works once across every gateway replica.
 */
export class SignInNonceStore {
  private readonly redis: IORedis;
  private readonly prefix: string;

  constructor(redisUrl: string, prefix: string, logger: Logger) {
    this.prefix = `${prefix}:gateway:siwe-nonce:`;
    this.redis = new IORedis(redisUrl, { maxRetriesPerRequest: 2 });
    this.redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error (sign-in nonces)'));
  }

  async save(nonce: string, pending: PendingSignIn, ttlSeconds: number): Promise<void> {
    const stored = await this.redis.set(this.prefix + nonce, JSON.stringify(pending), 'EX', ttlSeconds, 'NX');
    if (stored !== 'OK') throw new Error('a sign-in nonce was issued twice');
  }

  async consume(nonce: string): Promise<PendingSignIn | undefined> {
    const raw = await this.redis.getdel(this.prefix + nonce);
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as PendingSignIn;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
