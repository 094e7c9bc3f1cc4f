import path from 'node:path';
import { z } from 'zod';
import { baseEnv } from '../../services/common/config';
import { byAddressVariable, CATALOG, type CatalogEntry, defaultGrpcAddress } from '../../services/common/service-catalog';
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
});

export type StackConfig = z.output<typeof stackConfigSchema>;

/**
 * Each request leaves short-lived garbage behind; a larger young generation collects it less often
 * (measured: about a tenth less gateway CPU per lookup). docker-compose and deploy/k8s set the same.
 */
const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=64'];

/**
 * Every member of the stack, from the same entry points docker-compose uses: the services (which
 * migrate their own schemas at start), then the gateway, which only needs them when it calls them
 * and stops before them. `root` holds services/ and gateway/: dist/ after a build, or the sources
 * when the tests run them through a TypeScript loader.
 */
export function stackMembers(config: StackConfig, root = path.resolve(__dirname, '../..')): MemberSpec[] {
  const extension = path.extname(__filename);
  const services: MemberSpec[] = CATALOG.map((service) => {
    const port = config[service.addressVariable];
    return {
      name: service.name,
      entry: path.join(root, 'services', service.name, `main${extension}`),
      env: { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(port) },
      layer: 0,
      listens: [{ host: '127.0.0.1', port, variable: service.addressVariable, form: 'host:port' }],
    };
  });
  const gateway: MemberSpec = {
    name: 'gateway',
    entry: path.join(root, 'gateway', `main${extension}`),
    env: { GATEWAY_WORKERS: String(config.GATEWAY_WORKERS) },
    execArgv: GATEWAY_NODE_FLAGS,
    layer: 1,
    listens: [
      { host: config.HOST, port: config.PORT, variable: 'PORT', form: 'port' },
      { host: config.METRICS_HOST, port: config.METRICS_PORT, variable: 'METRICS_PORT', form: 'port' },
    ],
  };
  return [...services, gateway];
}
