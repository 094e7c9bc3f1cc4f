/**
 * An empty chain for the claim service to watch during the benchmark: the product's EDR chain
 * (scripts/dev-chain/edr-chain.ts, the engine of `npm start`'s dev chain and of the tests' chain)
 * behind a JSON-RPC endpoint on 127.0.0.1. Nothing is deployed: the watcher reads no Claimed logs
 * and nothing expires within a run; it is there so that the claim service's watch job has a live
 * chain and closing can sign for it.
 */
import { startEdrChain } from '../scripts/dev-chain/edr-chain';

export interface BenchChain {
  chainId: number;
  url: string;
  stop(): Promise<void>;
}

export async function startBenchChain(chainId = 31_337): Promise<BenchChain> {
  const chain = await startEdrChain({ chainId });
  const endpoint = await chain.serveHttp();
  return { chainId, url: endpoint.url, stop: () => chain.stop() };
}
