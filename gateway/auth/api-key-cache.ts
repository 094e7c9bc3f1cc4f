import type { ApiKeyRecord } from '../access/api-key.repository';

/**
 * Verified keys, by hash, for a short time: the lookup endpoint must not pay a database round
 * trip per request for authentication. Revocation evicts at once (see revocation-channel.ts).
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, { record: ApiKeyRecord; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string): ApiKeyRecord | undefined {
    const hit = this.byHash.get(hash);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.byHash.delete(hash);
      return undefined;
    }
    return hit.record;
  }

  set(hash: string, record: ApiKeyRecord): void {
    if (this.ttlMs <= 0) return;
    if (this.byHash.size >= this.maxEntries) {
      const oldest = this.byHash.keys().next().value;
      if (oldest !== undefined) this.byHash.delete(oldest);
    }
    this.byHash.set(hash, { record, expiresAt: this.now() + this.ttlMs });
  }

  evictKeyId(keyId: string): void {
    for (const [hash, entry] of this.byHash) {
      if (entry.record.id === keyId) this.byHash.delete(hash);
    }
  }
}
