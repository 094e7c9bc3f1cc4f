/**
 * Every gRPC service of the platform, as data: who it is, where it listens by default, the variable
 * that tells the gateway (and `npm start`) where it is, and the schema it owns. The gateway, the
 * `npm start` supervisor, the test stack and the check of docker-compose.yml, deploy/k8s and
 * .env.example all read this list; each service's code is declared in its own
 * `services/<name>/manifest.ts`. Data only: the gateway imports this file, so nothing here may
 * import a service's code.
 *
 * A new service is one entry here (and one line in services/manifests.ts).
 */
export interface CatalogEntry {
  /** The service's folder under services/, its process and container name, its host in compose and Kubernetes. */
  name: string;
  /** The PostgreSQL schema it owns (no other service reads it). */
  schema: string;
  /** The fully qualified name of its gRPC service, which its health check also answers for. */
  grpcService: string;
  /** Where it listens unless GRPC_PORT says otherwise. */
  defaultGrpcPort: number;
  /** The gateway's (and `npm start`'s) variable for its address, host:port. */
  addressVariable: `${Uppercase<string>}_GRPC_ADDR`;
}

/** The entries, keyed by their names (each entry's name is its key). */
function catalog<T extends { [K in keyof T]: CatalogEntry & { name: K } }>(entries: T): T {
  return entries;
}

export const SERVICE_CATALOG = catalog({
  audience: {
    name: 'audience',
    schema: 'audience',
    grpcService: 'referral.audience.v1.AudienceService',
    defaultGrpcPort: 20051,
    addressVariable: 'AUDIENCE_GRPC_ADDR',
  },
  tax: {
    name: 'tax',
    schema: 'tax',
    grpcService: 'referral.tax.v1.TaxService',
    defaultGrpcPort: 20052,
    addressVariable: 'TAX_GRPC_ADDR',
  },
  agency: {
    name: 'agency',
    schema: 'agency',
    grpcService: 'referral.agency.v1.AgencyService',
    defaultGrpcPort: 20053,
    addressVariable: 'AGENCY_GRPC_ADDR',
  },
  claim: {
    name: 'claim',
    schema: 'claim',
    grpcService: 'referral.claim.v1.ClaimService',
    defaultGrpcPort: 20054,
    addressVariable: 'CLAIM_GRPC_ADDR',
  },
  webhooks: {
    name: 'webhooks',
    schema: 'webhooks',
    grpcService: 'referral.webhooks.v1.WebhooksService',
    defaultGrpcPort: 20055,
    addressVariable: 'WEBHOOKS_GRPC_ADDR',
  },
} as const);

export type ServiceName = keyof typeof SERVICE_CATALOG;
export type AddressVariable = (typeof SERVICE_CATALOG)[ServiceName]['addressVariable'];

/** The catalog as a list, in a fixed order (the order services start in). */
export const CATALOG: ReadonlyArray<(typeof SERVICE_CATALOG)[ServiceName]> = Object.values(SERVICE_CATALOG);

/** Where a service listens on this machine unless its address variable says otherwise. */
export function defaultGrpcAddress(entry: CatalogEntry): string {
  return `127.0.0.1:${entry.defaultGrpcPort}`;
}

/** One value per service, keyed by its address variable (e.g. the schema of each in a configuration). */
export function byAddressVariable<T>(value: (entry: (typeof CATALOG)[number]) => T): Record<AddressVariable, T> {
  return Object.fromEntries(CATALOG.map((entry) => [entry.addressVariable, value(entry)])) as Record<AddressVariable, T>;
}
