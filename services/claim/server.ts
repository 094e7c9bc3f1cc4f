import { registerConsumer, startOutboxRelay } from '../platform/outbox/runtime';
import type { ServiceRuntime } from '../platform/service-runtime';
import { claimManagerReader } from './chain/claim-manager-reader';
import { VoucherSigner } from './chain/voucher-signer';
import { buildClaimDomain } from './composition';
import type { ClaimConfig } from './config';
import type { ClaimDatabase } from './database';
import { ChainDirectory } from './domain/chains';
import { createClaimGrpcService } from './grpc/claim.grpc';
import { connectClaimDependencies } from './grpc/outbound-clients';
import { affiliateUnflags } from './jobs/affiliate-unflags.consumer';
import { watchChain, watchChainJob, watchChainSchedulerId } from './jobs/chain-watcher.job';
import { conversionBatchRelay } from './jobs/conversion-batch-relay';
import { BatchJobScheduler } from '../platform/batch-job-scheduler';
import { payConversions, payConversionsJob } from './jobs/pay-conversions.job';
import { RELEASE_SCHEDULER_ID, releaseHeldMovements, releaseHeldMovementsJob } from './jobs/release-held-movements.job';

/** The composition root (see manifest.ts): the domain (composition.ts), the payment job and the gRPC service. */
export async function composeClaimService(runtime: ServiceRuntime<ClaimDatabase>, config: ClaimConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  const dependencies = connectClaimDependencies(config);
  runtime.closeOnStop(() => dependencies.close());
  const { attribution, allowlists, taxStatus } = dependencies;
  const signer = await VoucherSigner.fromPrivateKeys(config.vouchers.signerKeys.reveal());
  if (config.vouchers.developmentSigner) {
    logger.warn(
      `CLAIM_SIGNER_KEYS is not set: vouchers are signed with the PUBLIC development key of ${signer.addresses.join(', ')} ` +
        '(Hardhat and Anvil account #0), which anyone can sign with: a ClaimManager that trusts it pays anyone anything. ' +
        'Never deploy like this: set CLAIM_SIGNER_KEYS to the signer keys the ClaimManager authorises.',
    );
  }
  logger.info(
    {
      signers: signer.addresses,
      chains: config.chains.map(({ chainId, claimManager, confirmations }) => ({ chain_id: chainId, claim_manager: claimManager, confirmations })),
    },
    'voucher signing configured',
  );
  const chains = new ChainDirectory(config.chains, config.vouchers.domainName, config.vouchers.domainVersion);
  const domain = buildClaimDomain({
    db,
    clock,
    logger,
    scheduler: new BatchJobScheduler(queues, payConversionsJob, logger, 'conversions'),
    attribution,
    allowlists,
    outbox: startOutboxRelay(runtime, config),
    leaderboardCacheMs: config.CLAIM_LEADERBOARD_CACHE_MS,
    conversionBackfillDays: config.CONVERSION_BACKFILL_DAYS,
    checks: {
      signer,
      chains,
      ttlSeconds: config.vouchers.ttlSeconds,
      taxStatus,
      readerOf: (chain) => claimManagerReader(chain),
      watcher: { blockRange: config.vouchers.logBlockRange, maxRangesPerRun: 50, expiryBatch: 200 },
    },
  });

  runtime.process(payConversionsJob, payConversions(domain.payouts), config.CONVERSION_WORKER_CONCURRENCY);
  relay.register(conversionBatchRelay(domain.payouts));
  runtime.process(watchChainJob, watchChain(domain.watcher));
  // One schedule per chain, kept in place by the relay (re-created when Redis comes back without it).
  for (const { chainId } of chains.chains) {
    relay.repeat({ job: watchChainJob, schedulerId: watchChainSchedulerId(chainId), everyMs: config.vouchers.watchEveryMs, payload: { chainId } });
  }

  // Held movements become available when their hold passes: one schedule, kept in place by the relay.
  runtime.process(releaseHeldMovementsJob, releaseHeldMovements(domain.decisions));
  relay.repeat({ job: releaseHeldMovementsJob, schedulerId: RELEASE_SCHEDULER_ID, everyMs: config.CLAIM_RELEASE_EVERY_MS, payload: {} });

  // An unflagged affiliate's payouts waiting for review because of its flag go on (the agency's status events).
  registerConsumer(runtime, affiliateUnflags);

  return createClaimGrpcService(domain, logger);
}
