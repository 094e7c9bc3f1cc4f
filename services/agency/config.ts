import { z } from 'zod';
import { grpcClientEnv, serviceEnv } from '../platform/config';
import { defaultGrpcAddress, SERVICE_CATALOG } from '../platform/service-catalog';

export const agencyConfigSchema = z.object({
  ...serviceEnv(SERVICE_CATALOG.agency.defaultGrpcPort),
  /** The audience service (static segments for approvals, users' tiers), host:port. */
  [SERVICE_CATALOG.audience.addressVariable]: z.string().default(defaultGrpcAddress(SERVICE_CATALOG.audience)),
  /** The claim service (its paid conversions, for rebuilding the affiliate metrics), host:port. */
  [SERVICE_CATALOG.claim.addressVariable]: z.string().default(defaultGrpcAddress(SERVICE_CATALOG.claim)),
  /** Deadline of each call to another service. */
  ...grpcClientEnv,
  /** How long tracking events (and their batches, dedup ids and outcomes) are kept; older monthly partitions are dropped. */
  TRACKING_EVENT_RETENTION_DAYS: z.coerce.number().int().min(31).max(3_650).default(400),
});

export type AgencyConfig = z.output<typeof agencyConfigSchema>;
