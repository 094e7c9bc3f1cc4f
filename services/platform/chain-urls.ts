/**
 * Per-chain settings written as `chainId=value` pairs separated by commas, e.g.
 * `CHAIN_RPC_URLS=8453=https://mainnet.base.org,1=https://eth.example`: one parser for every process
 * that reads them (the claim service's chain watcher, the gateway's contract-wallet signatures).
 */
import type { z } from 'zod';

const CHAIN_ID = /^[1-9][0-9]{0,15}$/;
const RPC_URL = /^https?:\/\/[^\s]+$/;

/** `chainId=value,…` -> a map, or undefined after adding the problem (named by the variable) to `ctx`. */
export function chainPairs(variable: string, raw: string | undefined, ctx: z.RefinementCtx): Map<number, string> | undefined {
  const pairs = new Map<number, string>();
  if (raw === undefined) return pairs;
  for (const part of raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = part.indexOf('=');
    const chain = at > 0 ? part.slice(0, at).trim() : '';
    const value = at > 0 ? part.slice(at + 1).trim() : '';
    if (!CHAIN_ID.test(chain) || !Number.isSafeInteger(Number(chain)) || value === '') {
      ctx.addIssue({ code: 'custom', path: [variable], message: `"${part.slice(0, 40)}" is not chainId=value (e.g. 8453=…)` });
      return undefined;
    }
    if (pairs.has(Number(chain))) {
      ctx.addIssue({ code: 'custom', path: [variable], message: `chain ${chain} is listed twice` });
      return undefined;
    }
    pairs.set(Number(chain), value);
  }
  return pairs;
}

/** The problem with a JSON-RPC endpoint of CHAIN_RPC_URLS, or undefined when it is an http(s) URL. */
export function rpcUrlProblem(chainId: number, url: string): string | undefined {
  return RPC_URL.test(url) ? undefined : `chain ${chainId}: the URL must be http:// or https://`;
}

/**
 * CHAIN_RPC_URLS as a process that only reads chains needs it: every chain's endpoint, each checked,
 * or undefined after adding every problem to `ctx`.
 */
export function chainRpcUrls(raw: string | undefined, ctx: z.RefinementCtx): Map<number, string> | undefined {
  const urls = chainPairs('CHAIN_RPC_URLS', raw, ctx);
  if (!urls) return undefined;
  let ok = true;
  for (const [chainId, url] of urls) {
    const problem = rpcUrlProblem(chainId, url);
    if (problem) {
      ok = false;
      ctx.addIssue({ code: 'custom', path: ['CHAIN_RPC_URLS'], message: problem });
    }
  }
  return ok ? urls : undefined;
}
