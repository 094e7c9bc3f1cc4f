import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Migration } from 'kysely';
import type { z } from 'zod';
import { loadConfig } from './config';
import { bindGrpcServer } from './grpc/server';
import { runProcess } from './lifecycle';
import { createLogger, type Logger } from './logger';
import type { CatalogEntry, ServiceName } from './service-catalog';
import { type DeclaredJob, type RunningService, ServiceRuntime, type ServiceOverrides, type ServiceRuntimeConfig } from './service-runtime';

/**
 * A service, declared once (services/<name>/manifest.ts): who it is (its catalog entry), its
 * configuration, migrations, gRPC definition, jobs and composition root. Its main.ts, the test
 * stack and the template database of the tests all start from it; services/manifests.ts lists them.
 */
export interface ServiceManifest<Config extends ServiceRuntimeConfig, DB> {
  service: CatalogEntry;
  /** The variables it reads, validated at start-up (services/<name>/config.ts). */
  configSchema: z.ZodType<Config>;
  /** Its ordered migrations; a migration that needs more than SQL gets it from the configuration. */
  migrations(context: { config: Config; logger: Logger }): Record<string, Migration>;
  /** The generated definition (gen/) of the gRPC service it implements, named service.grpcService. */
  grpc: ServiceDefinition;
  /** Every job it runs, the consumers of other services' events included; its composition root gives each exactly one processor (runtime.process), or it does not start. */
  jobs: readonly DeclaredJob[];
  /**
   * The services it calls synchronously (its gRPC clients, in services/<name>/grpc/), next to the
   * events it consumes (its consumer jobs above). test/unit/common/service-dependencies.test.ts checks
   * this against its imports and docs/architecture.md, and fails on a new synchronous cycle.
   */
  calls: readonly SynchronousCall[];
  /**
   * The composition root (server.ts): plain constructors on the runtime's database, queues and
   * clock, each job's processor registered; answers the gRPC implementation.
   */
  compose(runtime: ServiceRuntime<DB>, config: Config): Promise<UntypedServiceImplementation>;
}

/** A synchronous dependency: the service called, the gRPC methods, and when. */
export interface SynchronousCall {
  service: ServiceName;
  /** The methods called, as the .proto names them. */
  methods: readonly string[];
  when: string;
}

/** Any service's manifest, for the lists that iterate them (each has its own configuration and tables). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of manifests of different configurations
export type AnyServiceManifest = ServiceManifest<any, any>;

/**
 * Starts a service from its manifest: its gRPC port bound (answering UNAVAILABLE meanwhile), then
 * the runtime (schema migrated, queues), composition, then serving. The port comes first because
 * the runtime opens dozens of connections, and on Linux each takes a local port from the ephemeral
 * range: bound later, the service's port could already be one of them (see bindGrpcServer).
 */
export async function startService<Config extends ServiceRuntimeConfig, DB>(
  manifest: ServiceManifest<Config, DB>,
  config: Config,
  overrides: ServiceOverrides = {},
): Promise<RunningService> {
  const { service } = manifest;
  // Before the runtime: a migration may report what it did (the tax service's re-sealing does).
  const logger =
    overrides.logger ?? createLogger({ service: service.name, level: config.LOG_LEVEL, format: config.LOG_FORMAT, nodeEnv: config.NODE_ENV });
  const grpc = await bindGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{ name: service.grpcService, definition: manifest.grpc }],
  });
  let runtime: ServiceRuntime<DB> | undefined;
  try {
    runtime = await ServiceRuntime.start<DB>({
      service,
      migrations: manifest.migrations({ config, logger }),
      jobs: manifest.jobs,
      config,
      logger,
      clock: overrides.clock,
    });
    const implementation = await manifest.compose(runtime, config);
    return await runtime.serve(grpc, { [service.grpcService]: implementation });
  } catch (error) {
    await runtime?.close();
    grpc.close();
    throw error;
  }
}

/** A service's main.ts: its configuration from the environment, then the service, as a process. */
export function runService(manifest: AnyServiceManifest): void {
  runProcess(manifest.service.name, () => startService(manifest, loadConfig(manifest.configSchema)));
}
