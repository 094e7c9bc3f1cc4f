import path from 'node:path';
import { z } from 'zod';
import { baseEnv, optionalEnv } from '../../services/platform/config';
import { byAddressVariable, CATALOG, type CatalogEntry, defaultGrpcAddress } from '../../services/platform/service-catalog';
import { DEFAULT_DEV_CHAIN_PORT, DEV_CHAIN_HOST, devChainClaimEnv } from '../dev-chain/constants';
import type { MemberSpec } from './supervisor';

const grpcAddress = (service: CatalogEntry) =>
  z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, `host:port, e.g. ${defaultGrpcAddress(service)}`)
    .default(defaultGrpcAddress(service))
    .transform((address) => Number(address.slice(address.lastIndexOf(':') + 1)));

/** What the supervisor reads (validated like every process's configuration). */
export const stackConfigSchema = z.object({
  SHUTDOWN_GRACE_MS: baseEnv.SHUTDOWN_GRACE_MS,
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  // The gateway's metrics port (gateway/config.ts), checked free before anything starts like the others.
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  // One gateway process by default: here it shares the cores with the services and PostgreSQL, and
  // on two cores a second gateway worker cost more CPU per lookup than it gained (smaller batches).
  GATEWAY_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  // Where each service of the catalog listens: the supervisor passes the port on as its GRPC_PORT.
  ...byAddressVariable(grpcAddress),
  // The dev chain runs when no chain is configured, outside production (devChainRuns).
  NODE_ENV: baseEnv.NODE_ENV,
  CHAIN_RPC_URLS: optionalEnv(z.string()),
  CLAIM_MANAGER_ADDRESSES: optionalEnv(z.string()),
  DEV_CHAIN_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_DEV_CHAIN_PORT),
  CHAIN_WATCH_EVERY_MS: optionalEnv(z.string()),
});

export type StackConfig = z.output<typeof stackConfigSchema>;

/**
 * The dev chain runs with the stack when no chain is configured (neither CHAIN_RPC_URLS nor
 * CLAIM_MANAGER_ADDRESSES: one of them alone is the claim service's configuration error to report)
 * and NODE_ENV is not production (there the claim service refuses to start without a real chain).
 */
export function devChainRuns(config: StackConfig): boolean {
  return config.NODE_ENV !== 'production' && config.CHAIN_RPC_URLS === undefined && config.CLAIM_MANAGER_ADDRESSES === undefined;
}

/** Where the dev chain answers, when it runs. */
export function devChainUrl(config: StackConfig): string {
  return `http://${DEV_CHAIN_HOST}:${config.DEV_CHAIN_PORT}`;
}

/**
 * The services' young generation: two semi-spaces of 8 MB at most instead of V8's 16. Once a service
 * has been busy (its start-up is enough) they stay resident, so this is a fixed share of each one's
 * RSS; the conversions' CPU per conversion did not move. The gateway keeps V8's default: its former
 * 64 MB semi-spaces held 68-94 MB more at its peak for no CPU per lookup the pairs could tell
 * (bench/README.md, eleventh session: peak RSS of the stack). docker-compose and deploy/k8s set the same.
 */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8'];

/**
 * Every member of the stack, from the same entry points docker-compose uses: the services (which
 * migrate their own schemas at start), then the gateway, which only needs them when it calls them
 * and stops before them. `root` holds services/ and gateway/: dist/ after a build, or the sources
 * when the tests run them through a TypeScript loader.
 */
export function stackMembers(config: StackConfig, root = path.resolve(__dirname, '../..')): MemberSpec[] {
  const extension = path.extname(__filename);
  const devChain = devChainRuns(config);
  // The claim service signs for and watches the dev chain; its watch runs every second unless set.
  const chainEnv = devChain ? { ...devChainClaimEnv(devChainUrl(config)), CHAIN_WATCH_EVERY_MS: config.CHAIN_WATCH_EVERY_MS ?? '1000' } : {};
  const services: MemberSpec[] = CATALOG.map((service) => {
    const port = config[service.addressVariable];
    return {
      name: service.name,
      entry: path.join(root, 'services', service.name, `main${extension}`),
      env: { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(port), ...(service.name === 'claim' ? chainEnv : {}) },
      execArgv: SERVICE_NODE_FLAGS,
      layer: 0,
      listens: [{ host: '127.0.0.1', port, variable: service.addressVariable, form: 'host:port' }],
    };
  });
  const gateway: MemberSpec = {
    name: 'gateway',
    entry: path.join(root, 'gateway', `main${extension}`),
    env: { GATEWAY_WORKERS: String(config.GATEWAY_WORKERS) },
    layer: 1,
    listens: [
      { host: config.HOST, port: config.PORT, variable: 'PORT', form: 'port' },
      { host: config.METRICS_HOST, port: config.METRICS_PORT, variable: 'METRICS_PORT', form: 'port' },
    ],
  };
  if (!devChain) return [...services, gateway];
  // Started first and stopped last (layer -1): the claim service reads it for as long as it runs.
  const chain: MemberSpec = {
    name: 'dev-chain',
    entry: path.join(root, 'scripts', 'dev-chain', `main${extension}`),
    env: {},
    layer: -1,
    listens: [{ host: DEV_CHAIN_HOST, port: config.DEV_CHAIN_PORT, variable: 'DEV_CHAIN_PORT', form: 'port' }],
  };
  return [chain, ...services, gateway];
}
