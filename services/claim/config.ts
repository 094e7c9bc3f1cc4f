import { z } from 'zod';
import { grpcClientEnv, serviceEnv } from '../platform/config';
import { defaultGrpcAddress, SERVICE_CATALOG } from '../platform/service-catalog';
import { claimCheckEnv, claimCheckSettings } from './chain/chain-config';
import { DEFAULT_BACKFILL_DAYS } from './domain/conversion-input';

export const claimConfigSchema = z
  .object({
    ...serviceEnv(SERVICE_CATALOG.claim.defaultGrpcPort),
    /** Where the agency service listens: attribution of every conversion is asked there. */
    [SERVICE_CATALOG.agency.addressVariable]: z.string().default(defaultGrpcAddress(SERVICE_CATALOG.agency)),
    /** Where the audience service listens: payout terms' allowlists are checked there (saving terms, paying batches whose terms name one). */
    [SERVICE_CATALOG.audience.addressVariable]: z.string().default(defaultGrpcAddress(SERVICE_CATALOG.audience)),
    /** Deadline of each call to another service (the agency, the audience and the tax services). */
    ...grpcClientEnv,
    /** Conversion batches one process pays at a time (each is one transaction of up to 1,000 conversions). */
    CONVERSION_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
    /**
     * How many days before its project's creation a conversion's occurred_at may be (a project's
     * history, backfilled); earlier is refused (400 OCCURRED_AT_OUT_OF_RANGE). At most 100 years.
     */
    CONVERSION_BACKFILL_DAYS: z.coerce.number().int().min(0).max(36_500).default(DEFAULT_BACKFILL_DAYS),
    /** Claim checks, vouchers and chains (chain/chain-config.ts). */
    ...claimCheckEnv,
    /**
     * How long a leaderboard page read is answered again without reading it (its freshness: a payment
     * shows on the board at most this much later). 0 reads every request's page.
     */
    CLAIM_LEADERBOARD_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    /**
     * How often the release job makes held movements whose hold has passed available (the most a
     * release is late, beside the job's own run time).
     */
    CLAIM_RELEASE_EVERY_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  })
  // The raw signer keys do not stay in the configuration: only the redacting SignerKeys holds them.
  .transform(({ CLAIM_SIGNER_KEYS: signerKeys, ...env }, ctx) => ({ ...env, ...claimCheckSettings({ ...env, CLAIM_SIGNER_KEYS: signerKeys }, ctx) }));

export type ClaimConfig = z.output<typeof claimConfigSchema>;
