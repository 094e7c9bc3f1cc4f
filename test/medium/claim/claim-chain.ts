import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import { claimManagerAbi } from '../../../contracts/generated/claim-manager';
import { claimManagerReader } from '../../../services/claim/chain/claim-manager-reader';
import { VoucherSigner } from '../../../services/claim/chain/voucher-signer';
import type { ClaimRow } from '../../../services/claim/domain/claim-check.service';
import type { PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import { ChainDirectory } from '../../../services/claim/domain/chains';
import type { TestClock } from '../../helpers/clock';
import { type ClaimHarness, type ClaimHarnessOptions, startClaimDomain } from '../../helpers/claim-domain';
import { type ClaimManagerDeployment, deployClaimManager } from '../../helpers/evm';
import { lateBound } from '../../helpers/late-bound';
import { claimArgument } from './claim-check-fixtures';

const viem = () => import('viem');

/**
 * ClaimManager and a test token on the in-process EVM for the medium tier: the project account has
 * deposited, and the claim domain reads the chain through viem over the EVM's EIP-1193 provider.
 */
export interface MediumChain extends ClaimManagerDeployment {
  /** What startClaimDomain needs to sign for and watch this chain. */
  checks: NonNullable<ClaimHarnessOptions['checks']>;
  /** ClaimManager.claim with these vouchers, sent by the relayer. */
  redeem(rows: ClaimRow[]): Promise<{ status: string; transactionHash: Hex; blockNumber: bigint }>;
  /** The custom error a call reverted with. */
  revertOf(attempt: Promise<unknown>): Promise<string>;
  /** Sets the service's clock to the chain's latest block time. */
  syncClock(clock: TestClock): Promise<void>;
}

/**
 * The set-up of a medium file on the chain, as hooks: the chain (startMediumChain, starting at the
 * clock's now) and the claim domain signing for it and watching it, started before the file's tests
 * and stopped after them. Call it
 * inside the file's describe, before the file's own hooks. Returns stand-ins that answer with the
 * started chain and harness once the file's beforeAll hooks run.
 */
export function useClaimDomainOnChain(
  clock: TestClock,
  options: Omit<Parameters<typeof startMediumChain>[0], 'startTime'>,
): { medium: MediumChain; harness: ClaimHarness } {
  let medium: MediumChain | undefined;
  let harness: ClaimHarness | undefined;
  beforeAll(async () => {
    medium = await startMediumChain({ ...options, startTime: clock.now() });
    harness = await startClaimDomain({ clock, checks: medium.checks });
  });
  afterAll(async () => {
    await harness?.stop();
    await medium?.chain.stop();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is not started yet (it was asked for outside the tests and hooks)`);
    return value;
  };
  return { medium: lateBound(() => started(medium, 'chain')), harness: lateBound(() => started(harness, 'claim domain')) };
}

export async function startMediumChain(options: {
  keys: Hex[];
  ttlSeconds: number;
  confirmations: number;
  startTime: Date;
  deposit?: bigint;
}): Promise<MediumChain> {
  const deposit = options.deposit ?? 10n ** 24n;
  const signer = await VoucherSigner.fromPrivateKeys(options.keys);
  const deployment = await deployClaimManager({ startTime: options.startTime, signers: signer.addresses, deposit });
  const { chain, manager, relayer } = deployment;
  const { BaseError, ContractFunctionRevertedError, custom } = await viem();

  return {
    ...deployment,
    checks: {
      signer,
      ttlSeconds: options.ttlSeconds,
      chains: new ChainDirectory(
        [
          {
            chainId: chain.chainId,
            rpcUrl: 'http://unused',
            claimManager: manager.toLowerCase() as Address,
            confirmations: options.confirmations,
            startBlock: 0n,
          },
        ],
        'Referral ClaimManager',
        '1',
      ),
      readerOf: (settings) => claimManagerReader(settings, custom(chain.provider)),
    },
    redeem: async (rows) => {
      const hash = await relayer.wallet.writeContract({
        address: manager,
        abi: claimManagerAbi,
        functionName: 'claim',
        args: [rows.map(claimArgument)],
      });
      return chain.publicClient.waitForTransactionReceipt({ hash });
    },
    revertOf: async (attempt) => {
      try {
        await attempt;
      } catch (error) {
        const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined;
        if (reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName) return reverted.data.errorName;
        throw error;
      }
      throw new Error('the call succeeded; a revert was expected');
    },
    syncClock: async (clock) => clock.set(new Date(Number(await chain.timestamp()) * 1000)),
  };
}

/**
 * The chain's test token as a currency of a new project, and the project's account on chain as its
 * claim settings: what a project needs before its payouts can be closed and redeemed here.
 */
export async function newProjectOnChain(harness: ClaimHarness, medium: MediumChain): Promise<{ projectId: string; currencyId: string }> {
  const projectId = randomUUID();
  const currency = await harness.domain.currencies.create(projectId, {
    chainId: String(medium.chain.chainId),
    address: medium.token,
    name: 'TUSD',
    decimals: 6,
    type: 'erc20',
  });
  await harness.domain.claimSettings.put(projectId, medium.projectAccount.address);
  return { projectId, currencyId: currency.id };
}

/**
 * A project on the chain (newProjectOnChain) with terms of each name given, each paying the end user 1% and the
 * referring affiliate 10% with that name's own settings (a hold, an approval, caps).
 */
export async function newProjectOnChainWithTerms(
  harness: ClaimHarness,
  medium: MediumChain,
  terms: Record<string, Partial<PayoutTermsInput>>,
): Promise<{ projectId: string; currencyId: string }> {
  const { projectId, currencyId } = await newProjectOnChain(harness, medium);
  const rewards = { endUser: { bps: 100 }, affiliate: { bps: 1_000 }, tiers: [] };
  for (const [name, settings] of Object.entries(terms)) await harness.domain.terms.put(projectId, name, { currencyId, ...rewards, ...settings });
  return { projectId, currencyId };
}
