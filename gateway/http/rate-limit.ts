/**
 * Token buckets per caller (API key id, or client address for unauthenticated routes), kept in
 * this process: each gateway replica enforces the limit on its own share of the traffic.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Milliseconds to wait before retrying, or 0 when the request may proceed. */
  take(caller: string): number {
    if (this.perSecond <= 0) return 0;
    const now = this.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.set(caller, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    if (this.buckets.size > 100_000) this.evictFull(now);
    return Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000);
  }

  /** Full buckets carry no state worth keeping. */
  private evictFull(now: number): void {
    for (const [caller, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond >= this.burst) this.buckets.delete(caller);
    }
  }
}
