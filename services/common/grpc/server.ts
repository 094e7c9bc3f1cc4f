import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { listenError } from '../config';
import type { Logger } from '../logger';
import { channelOptions } from './channel-options';

export interface GrpcServiceBinding {
  /** Fully qualified name, e.g. referral.audience.v1.AudienceService; also its health-check name. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  services: GrpcServiceBinding[];
  logger: Logger;
}

export interface RunningGrpcServer {
  port: number;
  /** Stops taking calls (health says NOT_SERVING), lets running calls finish, then forces. */
  shutdown(graceMs: number): Promise<void>;
}

/** The one gRPC bootstrap: every service gets the same options, health service and shutdown. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server(channelOptions);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  for (const service of options.services) {
    server.addService(service.definition, service.implementation);
    health.setStatus(service.name, 'NOT_SERVING');
  }

  const address = `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    // Every service reads its port from GRPC_PORT (serviceEnv), so a clash names it.
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(listenError(error, 'GRPC_PORT', address)) : resolve(boundPort),
    );
  });
  const setAll = (status: 'SERVING' | 'NOT_SERVING') => {
    health.setStatus('', status);
    for (const service of options.services) health.setStatus(service.name, status);
  };
  setAll('SERVING');
  options.logger.info({ port, services: options.services.map((s) => s.name) }, 'grpc server listening');

  return {
    port,
    shutdown: (graceMs) =>
      new Promise<void>((resolve) => {
        setAll('NOT_SERVING');
        const force = setTimeout(() => {
          options.logger.warn('grpc calls still running after the grace period; forcing shutdown');
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
