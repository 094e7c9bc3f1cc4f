import IORedis from 'ioredis';
import { withinMs } from '../../services/platform/deadline';
import type { Logger } from '../../services/platform/logger';

export interface RevocationListener {
  /** A key was revoked (on any replica): forget it. */
  revoked(keyId: string): void;
  /**
   * Whether every revocation will reach this replica: true once subscribed, false as soon as the
   * subscription drops (messages sent meanwhile are lost). While false, nothing may be trusted
   * from a cache; on every change the cache starts empty.
   */
  trusted(live: boolean): void;
}

/** How long a revoking replica keeps trying to broadcast, when Redis refuses: past it, every cache has expired the key. */
const PUBLISH_RETRY_MS = 500;

/**
 * Tells every gateway replica that a key was revoked, so none keeps trusting it from its cache.
 * Redis pub/sub delivers a message only to subscribers connected at that moment, so the channel
 * also says when it cannot be trusted (subscriber disconnected, or not yet subscribed again after
 * a reconnection): the cache then stops caching and starts empty when the subscription is back.
 */
export class RevocationChannel {
  private readonly publisher: IORedis;
  private readonly subscriber: IORedis;
  private readonly channel: string;
  private listener: RevocationListener | undefined;
  private live = false;
  private closing = false;

  constructor(
    redisUrl: string,
    prefix: string,
    private readonly logger: Logger,
    private readonly cacheTtlMs: number,
  ) {
    this.channel = `${prefix}:gateway:api-key-revoked`;
    this.publisher = new IORedis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    // Named so an operator (and a test) can find it in CLIENT LIST; resubscribed by hand (below)
    // so that "live" means subscribed on this very connection.
    this.subscriber = new IORedis(redisUrl, {
      maxRetriesPerRequest: null,
      autoResubscribe: false,
      connectionName: `${prefix}:gateway:revocations`,
    });
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error) => logger.warn({ err: error }, 'redis connection error (revocation channel)'));
    }
    this.subscriber.on('message', (channel: string, keyId: string) => {
      if (channel === this.channel) this.listener?.revoked(keyId);
    });
    this.subscriber.on('ready', () => void this.subscribe());
    this.subscriber.on('close', () => this.setLive(false));
  }

  /** Starts listening; resolves once subscribed, or after `timeoutMs` (the cache stays off until then). */
  async listen(listener: RevocationListener, timeoutMs: number): Promise<boolean> {
    this.listener = listener;
    listener.trusted(this.live);
    if (this.subscriber.status === 'ready' && !this.live) void this.subscribe();
    if (this.live) return true;
    return (await withinMs(new Promise<void>((resolve) => this.onceLive(resolve)), timeoutMs)) !== undefined;
  }

  isLive(): boolean {
    return this.live;
  }

  /**
   * Broadcasts a revocation. If Redis refuses, keeps trying (in the background) until every
   * replica's cache would have expired the key anyway; a replica that missed it because its own
   * subscription was down has already emptied its cache.
   */
  async publish(keyId: string): Promise<void> {
    const giveUpAt = Date.now() + this.cacheTtlMs;
    const attempt = async (): Promise<void> => {
      try {
        await this.publisher.publish(this.channel, keyId);
      } catch (error) {
        if (this.closing || Date.now() >= giveUpAt) {
          this.logger.warn({ err: error, key_id: keyId }, 'could not broadcast a key revocation; other replicas expire it by TTL');
          return;
        }
        setTimeout(() => void attempt(), PUBLISH_RETRY_MS).unref();
      }
    };
    await attempt();
  }

  /** Readiness: Redis answers. */
  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.listener = undefined;
    await Promise.all([
      this.publisher.quit().catch(() => this.publisher.disconnect()),
      this.subscriber.quit().catch(() => this.subscriber.disconnect()),
    ]);
  }

  private readonly liveWaiters: Array<() => void> = [];

  private onceLive(resolve: () => void): void {
    this.liveWaiters.push(resolve);
  }

  private async subscribe(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
      // Only if the connection that subscribed is still up: a drop in between left it not live.
      if (this.subscriber.status === 'ready') this.setLive(true);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not subscribe to key revocations; API keys are not cached until it works');
    }
  }

  private setLive(live: boolean): void {
    if (this.live === live) return;
    this.live = live;
    if (!this.closing) {
      if (live) this.logger.info('key revocations subscribed; API keys are cached again');
      else this.logger.warn('key revocation subscription lost; API keys are checked against the database until it is back');
    }
    this.listener?.trusted(live);
    if (live) for (const resolve of this.liveWaiters.splice(0)) resolve();
  }
}
