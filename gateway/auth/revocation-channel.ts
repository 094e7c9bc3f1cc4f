import IORedis from 'ioredis';
import type { Logger } from '../../services/common/logger';

/**
 * Tells every gateway replica that a key was revoked, so none keeps trusting it from its cache.
 * If a message is lost, the cache's short TTL still bounds how long a revoked key works.
 */
export class RevocationChannel {
  private readonly publisher: IORedis;
  private readonly subscriber: IORedis;
  private readonly channel: string;

  constructor(redisUrl: string, prefix: string, private readonly logger: Logger) {
    this.channel = `${prefix}:gateway:api-key-revoked`;
    this.publisher = new IORedis(redisUrl, { maxRetriesPerRequest: 2 });
    this.subscriber = new IORedis(redisUrl, { maxRetriesPerRequest: null });
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error) => logger.warn({ err: error }, 'redis connection error (revocation channel)'));
    }
  }

  async subscribe(onRevoked: (keyId: string) => void): Promise<void> {
    this.subscriber.on('message', (channel: string, keyId: string) => {
      if (channel === this.channel) onRevoked(keyId);
    });
    await this.subscriber.subscribe(this.channel);
  }

  async publish(keyId: string): Promise<void> {
    await this.publisher.publish(this.channel, keyId).catch((error: unknown) => {
      this.logger.warn({ err: error, key_id: keyId }, 'could not broadcast a key revocation; other replicas expire it by TTL');
    });
  }

  /** Readiness: Redis answers. */
  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    await Promise.all([this.publisher.quit().catch(() => undefined), this.subscriber.quit().catch(() => undefined)]);
  }
}
