import type { Clock } from '../../services/platform/clock';
import type { SharedReadObserver } from '../../services/platform/shared-reads';
import type { AccessService } from '../access/access.service';
import type { SignInService } from '../auth/siwe';
import type { WalletSignatures } from '../auth/wallet-signatures';
import type { ServiceClients } from '../clients';

/** What route handlers may use: generated gRPC clients, and the gateway's own access domain. */
export interface RouteDeps {
  clients: ServiceClients;
  access: AccessService;
  /** Sign-In with Ethereum: issues nonces and exchanges signed messages for session tokens. */
  signIn: SignInService;
  /** Wallet signatures (EIP-191, EIP-1271 on CHAIN_RPC_URLS, ed25519) of the SDK-style self-service paths and sign-in. */
  signatures: WalletSignatures;
  /** "Now", for what a route keeps for a while (a leaderboard page's snapshot). */
  clock: Clock;
  /** The metric of a shared read (gateway_shared_reads_total{read}). */
  sharedReads(read: string): SharedReadObserver;
  /** Evicts a revoked key from every replica's cache. */
  keyRevoked(keyId: string): Promise<void>;
}
