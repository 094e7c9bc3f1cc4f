import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import { claimManagerAbi } from '../../contracts/generated/claim-manager';
import { TestClock } from '../helpers/clock';
import { type ClaimManagerDeployment, deployClaimManager } from '../helpers/evm';
import { createAffiliate, createProject, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';
import { type StackOptions, startStack, type TestStack } from '../helpers/stack';

/**
 * What the claim-check HTTP tests share: a ClaimManager and a test token on the in-process EVM,
 * served over HTTP JSON-RPC to the claim service as CHAIN_RPC_URLS; the stack configured for that
 * chain; projects set up for claims; conversions paid by the stack's own job.
 */

/** Signer keys of the test ClaimManager (two required signatures). */
export const SIGNER_KEYS: Hex[] = [`0x${'3e'.repeat(32)}`, `0x${'4f'.repeat(32)}`];
export const TTL_SECONDS = 3_600;
export const CONFIRMATIONS = 1;
const DEPOSIT = 10n ** 18n;

export interface ClaimChain extends ClaimManagerDeployment {
  rpcUrl: string;
  /** The claim service's variables for this chain. */
  env: Record<string, string>;
  /** ClaimManager.claim with the vouchers as the API answered them. */
  redeem(vouchers: ClaimResponse[]): Promise<{ status: string; transactionHash: Hex; blockNumber: bigint }>;
}

export interface ClaimResponse {
  id: string;
  project_address: string;
  to: string;
  currency: string;
  currency_type: number;
  amount: string;
  reason: number;
  token_id: string;
  chain_id: number;
  deadline?: number;
  proof?: string;
  signatures?: string[];
  restriction_message?: string;
}

export async function startClaimChain(startTime: Date): Promise<ClaimChain> {
  const { privateKeyToAccount } = await import('viem/accounts');
  const deployment = await deployClaimManager({ startTime, signers: SIGNER_KEYS.map((key) => privateKeyToAccount(key).address), deposit: DEPOSIT });
  const { chain, manager, relayer } = deployment;
  const endpoint = await chain.serveHttp();
  return {
    ...deployment,
    rpcUrl: endpoint.url,
    env: {
      CHAIN_RPC_URLS: `${chain.chainId}=${endpoint.url}`,
      CLAIM_MANAGER_ADDRESSES: `${chain.chainId}=${manager}`,
      CHAIN_START_BLOCKS: `${chain.chainId}=0`,
      CHAIN_CONFIRMATIONS: String(CONFIRMATIONS),
      CHAIN_WATCH_EVERY_MS: '200',
      CLAIM_SIGNER_KEYS: SIGNER_KEYS.join(','),
      CLAIM_VOUCHER_TTL_SECONDS: String(TTL_SECONDS),
    },
    redeem: async (vouchers) => {
      const args = vouchers.map((voucher) => ({
        projectAddress: voucher.project_address as Address,
        to: voucher.to as Address,
        currency: voucher.currency as Address,
        currencyType: voucher.currency_type,
        amount: BigInt(voucher.amount),
        reason: voucher.reason,
        tokenId: BigInt(voucher.token_id),
        deadline: BigInt(voucher.deadline!),
        proof: voucher.proof as Hex,
        signatures: voucher.signatures as Hex[],
      }));
      const hash = await relayer.wallet.writeContract({ address: manager, abi: claimManagerAbi, functionName: 'claim', args: [args] });
      return chain.publicClient.waitForTransactionReceipt({ hash });
    },
  };
}

/** A test stack whose claim service watches and signs for the chain, on a clock that starts where the chain does. */
export async function startClaimStack(options: StackOptions = {}): Promise<{ stack: TestStack; claimChain: ClaimChain }> {
  const clock = options.clock ?? new TestClock();
  const claimChain = await startClaimChain(clock.now());
  try {
    const stack = await startStack({
      ...options,
      clock,
      serviceEnv: { ...options.serviceEnv, claim: { ...claimChain.env, ...options.serviceEnv?.claim } },
    });
    return { stack, claimChain };
  } catch (error) {
    await claimChain.chain.stop();
    throw error;
  }
}

export interface ClaimProject extends TestProject {
  currencyId: string;
}

type WithApi = { api: Api };

/** A project paying TUSD on the chain, claims set up: `trade` pays the end user 1% and the affiliate 10% of reward_base. */
export async function claimProject(stack: WithApi, claimChain: ClaimChain): Promise<ClaimProject> {
  const project = await createProject(stack);
  const expect = (response: { status: number; text: string }, statuses: number[], what: string) => {
    if (!statuses.includes(response.status)) throw new Error(`${what} failed: ${response.status} ${response.text}`);
  };
  const currency = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
    key: project.keys.admin,
    body: { chain_id: claimChain.chain.chainId, address: claimChain.token, name: 'TUSD', decimals: 6, type: 'erc20' },
  });
  expect(currency, [201], 'currency');
  const terms = await stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/trade`, {
    key: project.keys.admin,
    body: { currency_id: currency.body.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } },
  });
  expect(terms, [200, 201], 'payout terms');
  const settings = await stack.api.request('PUT', `/api/v1/projects/${project.id}/claim-settings`, {
    key: project.keys.admin,
    body: { project_address: claimChain.projectAccount.address },
  });
  expect(settings, [200], 'claim settings');
  return { ...project, currencyId: currency.body.id };
}

/** Pays `user` (as end user; and its referrer, if `referral_code` makes one) through POST /api/v1/conversions and the job. */
export async function earn(stack: WithApi, project: TestProject, user: string, rewardBase: number, referralCode?: string): Promise<void> {
  const id = `order-${randomUUID()}`;
  const submitted = await stack.api.post('/api/v1/conversions', {
    key: project.keys.service,
    body: {
      id,
      name: 'trade',
      user: { identifier: user, identifier_type: 'evm_address' },
      reward_base: String(rewardBase),
      ...(referralCode ? { referral_code: referralCode } : {}),
    },
  });
  if (submitted.status !== 202) throw new Error(`conversion refused: ${submitted.status} ${submitted.text}`);
  await pollUntil(
    async () => {
      const response = await stack.api.get(`/api/v1/conversions/${id}`, { key: project.keys.service });
      return response.body?.status === 'processed' ? response.body : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: `conversion ${id} to be paid` },
  );
}

/** An affiliate of the project with a code (created by the admin API). */
export async function newAffiliate(
  stack: WithApi,
  project: TestProject,
  identifier: string = randomEvmAddress(),
): Promise<{ identifier: string; code: string }> {
  const code = `c${randomUUID().slice(0, 8)}`;
  await createAffiliate(stack, project, { identifier, identifier_type: 'evm_address', name: 'Affiliate', code });
  return { identifier, code };
}

/** The user's claim checks through the API (a service_role key). */
export async function listChecks(stack: WithApi, project: TestProject, user: string, query = '') {
  const response = await stack.api.get(`/api/v1/claim-checks?user_identifier=${user}&user_identifier_type=evm_address${query}`, {
    key: project.keys.service,
  });
  if (response.status !== 200) throw new Error(`list failed: ${response.status} ${response.text}`);
  return response.body as { results: Array<Record<string, any>>; claim_checks: Array<Record<string, any>>; total_results: number };
}

export async function close(stack: WithApi, project: TestProject, user: string, ids: string[], key = project.keys.service) {
  return stack.api.post('/api/v1/claim-checks/close', {
    key,
    body: { userIdentifier: user, userIdentifierType: 'evm_address', claim_check_ids: ids },
  });
}

/** The ClaimManager's claimedProofs, as the claim service reads it. */
export function isRedeemed(claimChain: ClaimChain, proof: string): Promise<boolean> {
  return claimChain.chain.publicClient.readContract({
    address: claimChain.manager,
    abi: claimManagerAbi,
    functionName: 'claimedProofs',
    args: [proof as Hex],
  });
}
