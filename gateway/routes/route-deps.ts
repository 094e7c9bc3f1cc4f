import type { Clock } from '../../services/platform/clock';
import type { SharedReadObserver } from '../../services/platform/shared-reads';
import type { AccessService } from '../access/access.service';
import type { SignInService } from '../auth/siwe';
import type { WalletSignatures } from '../auth/wallet-signatures';
import type { AffiliateMessages } from '../auth/affiliate-messages';
import type { ServiceClients } from '../clients';
import type { RateLimiter } from '../http/rate-limit';

/** What route handlers may use: generated gRPC clients, and the gateway's own access domain. */
export interface RouteDeps {
  clients: ServiceClients;
  access: AccessService;
  /** Sign-In with Ethereum: issues nonces and exchanges signed messages for session tokens. */
  signIn: SignInService;
  /** Wallet signatures (EIP-191, EIP-1271 on CHAIN_RPC_URLS, ed25519) of the SDK-style self-service paths and sign-in. */
  signatures: WalletSignatures;
  /** The messages an affiliate signs to change its code or a code's rebate rate (configurable templates). */
  affiliateMessages: AffiliateMessages;
  /** "Now", for what a route keeps for a while (a leaderboard page's snapshot). */
  clock: Clock;
  /** The metric of a shared read (gateway_shared_reads_total{read}). */
  sharedReads(read: string): SharedReadObserver;
  /** POST /api/v1/events' rate limits, per key and per tracking id. */
  eventLimits: EventRateLimits;
  /** Evicts a revoked key from every replica's cache. */
  keyRevoked(keyId: string): Promise<void>;
}

/** POST /api/v1/events' own limits, beside the gateway's per-key limit of every request (gateway/config.ts). */
export interface EventRateLimits {
  /** Requests to POST /api/v1/events per API key (EVENTS_RATE_LIMIT_PER_SECOND, EVENTS_RATE_LIMIT_BURST). */
  perKey: RateLimiter;
  /** Events per metadata.tracking_id, a visitor (EVENTS_PER_TRACKING_ID_PER_SECOND, EVENTS_PER_TRACKING_ID_BURST). */
  perTrackingId: RateLimiter;
}
