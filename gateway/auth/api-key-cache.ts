import type { ApiKeyRecord } from '../access/api-key.repository';

/**
 * Verified keys, by hash, for a short time: the lookup endpoint must not pay a database round
 * trip per request for authentication. Revocation evicts at once (see revocation-channel.ts);
 * while revocations cannot be trusted to arrive, nothing is cached or served from the cache.
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, { record: ApiKeyRecord; expiresAt: number }>();
  private trusted = false;
  /** Moves on every eviction or change of trust, so a verification that raced one is not cached. */
  private epoch = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string): ApiKeyRecord | undefined {
    if (!this.trusted) return undefined;
    const hit = this.byHash.get(hash);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.byHash.delete(hash);
      return undefined;
    }
    return hit.record;
  }

  /** Taken before a key is verified in the database, and handed to set() after. */
  currentEpoch(): number {
    return this.epoch;
  }

  /**
   * Caches a key verified in the database, unless something was revoked (or trust changed)
   * since the verification began: the record read then may already be stale.
   */
  set(hash: string, record: ApiKeyRecord, verifiedInEpoch: number): void {
    if (this.ttlMs <= 0 || !this.trusted || verifiedInEpoch !== this.epoch) return;
    if (this.byHash.size >= this.maxEntries) {
      const oldest = this.byHash.keys().next().value;
      if (oldest !== undefined) this.byHash.delete(oldest);
    }
    this.byHash.set(hash, { record, expiresAt: this.now() + this.ttlMs });
  }

  evictKeyId(keyId: string): void {
    this.epoch += 1;
    const id = keyId.toLowerCase();
    for (const [hash, entry] of this.byHash) {
      if (entry.record.id.toLowerCase() === id) this.byHash.delete(hash);
    }
  }

  /** Whether revocations reach this replica; either way the cache starts over empty. */
  setTrusted(trusted: boolean): void {
    this.epoch += 1;
    this.trusted = trusted;
    this.byHash.clear();
  }
}
