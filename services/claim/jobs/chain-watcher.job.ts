import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { ChainWatcherService } from '../domain/chain-watcher.service';

export interface WatchChainData {
  chainId: number;
}

/**
 * Reads one chain's ClaimManager: Claimed logs after N confirmations from the last block applied,
 * then expired vouchers (ChainWatcherService). Run by one BullMQ job scheduler per configured chain,
 * which the relay keeps in place (re-created when Redis loses it). The job carries only the chain:
 * where to start is the cursor in PostgreSQL, so a late, repeated or concurrent run is harmless.
 */
export const watchChainJob: JobDefinition<WatchChainData> = {
  queue: 'claim-watch-chain',
  data: z.object({ chainId: z.number().int().positive() }).strict(),
};

export const watchChainSchedulerId = (chainId: number) => `watch-chain-${chainId}`;

export function watchChain(watcher: ChainWatcherService): JobProcessor<WatchChainData> {
  return ({ chainId }) => watcher.run(chainId);
}
