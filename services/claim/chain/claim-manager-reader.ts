/**
 * The chain watcher's reader of a ClaimManager, over viem: JSON-RPC over HTTP to CHAIN_RPC_URLS in
 * a deployment, or any viem transport given (the medium tests pass the in-process EVM's EIP-1193
 * provider through `custom`).
 */
import type { Transport } from 'viem' with { 'resolution-mode': 'import' };
import type { ChainSettings } from '../domain/chains';
import type { ClaimedLog, ClaimManagerReader } from '../domain/chain-watcher.service';
import { claimManagerAbi } from '../../../contracts/generated/claim-manager';

/** One JSON-RPC request's bound; viem retries a failed one twice with backoff. */
const REQUEST_TIMEOUT_MS = 15_000;

const claimedEvent = claimManagerAbi.find((entry) => entry.type === 'event' && entry.name === 'Claimed')!;
if (claimedEvent.type !== 'event') throw new Error('the ClaimManager ABI has no Claimed event');

export async function claimManagerReader(chain: ChainSettings, transport?: Transport): Promise<ClaimManagerReader> {
  const { createPublicClient, http } = await import('viem');
  const client = createPublicClient({
    transport: transport ?? http(chain.rpcUrl, { batch: true, timeout: REQUEST_TIMEOUT_MS, retryCount: 2 }),
  });
  const address = chain.claimManager;
  return {
    latestBlock: () => client.getBlockNumber({ cacheTime: 0 }),
    genesisHash: async () => (await client.getBlock({ blockNumber: 0n })).hash.toLowerCase(),
    blockTime: async (blockNumber) => (await client.getBlock({ blockNumber })).timestamp,
    claimedLogs: async (fromBlock, toBlock) => {
      const logs = await client.getLogs({ address, event: claimedEvent, fromBlock, toBlock, strict: true });
      return logs
        .filter((log) => !log.removed)
        .map((log): ClaimedLog => ({
          proof: log.args.proof.toLowerCase(),
          transactionHash: log.transactionHash.toLowerCase(),
          blockNumber: log.blockNumber,
          logIndex: log.logIndex,
        }));
    },
    claimedProofs: (proofs, atBlock) =>
      Promise.all(
        proofs.map((proof) =>
          client.readContract({ address, abi: claimManagerAbi, functionName: 'claimedProofs', args: [proof as `0x${string}`], blockNumber: atBlock }),
        ),
      ),
  };
}
