import {
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  type ServiceDefinition,
  status,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { listenError } from '../config';
import type { Logger } from '../logger';
import { channelOptions } from './channel-options';

/** A gRPC service the server will serve: what it answers is given later, to `serve`. */
export interface GrpcServiceDeclaration {
  /** Fully qualified name, e.g. referral.audience.v1.AudienceService; also its health-check name. */
  name: string;
  definition: ServiceDefinition;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  services: GrpcServiceDeclaration[];
  logger: Logger;
}

export interface BoundGrpcServer {
  port: number;
  /** From now on the services answer with these implementations (by service name), and health says SERVING. */
  serve(implementations: Record<string, UntypedServiceImplementation>): void;
  /** Stops taking calls (health says NOT_SERVING), lets running calls finish, then forces. */
  shutdown(graceMs: number): Promise<void>;
  /** Stops at once: start-up failed before `serve`, so no call has anything to finish. */
  close(): void;
}

/**
 * The one gRPC bootstrap: every service gets the same options, health service and shutdown.
 *
 * It binds the port first, before the service opens any connection (PostgreSQL, Redis, another
 * service): on Linux an outgoing connection takes a local port from the ephemeral range, and one
 * opened during start-up could take the service's own port just before the bind. Until `serve`,
 * health says NOT_SERVING and every call is answered UNAVAILABLE (which callers retry), not
 * UNIMPLEMENTED.
 */
export async function bindGrpcServer(options: GrpcServerOptions): Promise<BoundGrpcServer> {
  const server = new Server(channelOptions);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  for (const service of options.services) {
    server.addService(service.definition, startingImplementation(service));
    health.setStatus(service.name, 'NOT_SERVING');
  }

  const address = `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    // Every service reads its port from GRPC_PORT (serviceEnv), so a clash names it.
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(listenError(error, 'GRPC_PORT', address)) : resolve(boundPort),
    );
  });
  const setAll = (state: 'SERVING' | 'NOT_SERVING') => {
    health.setStatus('', state);
    for (const service of options.services) health.setStatus(service.name, state);
  };
  options.logger.info({ port }, 'grpc port bound; starting');

  return {
    port,
    serve: (implementations) => {
      for (const service of options.services) {
        const implementation = implementations[service.name];
        if (!implementation) throw new Error(`no implementation given for ${service.name}`);
        // Synchronous: no call can arrive between the two.
        server.removeService(service.definition);
        server.addService(service.definition, implementation);
      }
      setAll('SERVING');
      options.logger.info({ port, services: options.services.map((s) => s.name) }, 'grpc server listening');
    },
    close: () => server.forceShutdown(),
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

/** Answers each method of the service UNAVAILABLE, as grpc-js's own unimplemented handlers answer, by kind of method. */
function startingImplementation(service: GrpcServiceDeclaration): UntypedServiceImplementation {
  const starting: ServerErrorResponse = Object.assign(new Error(`${service.name} is starting; try again shortly`), {
    code: status.UNAVAILABLE,
    details: `${service.name} is starting; try again shortly`,
  });
  const handlers: Record<string, UntypedHandleCall> = {};
  for (const [method, definition] of Object.entries(service.definition)) {
    handlers[method] = definition.responseStream
      ? (call: { emit(event: 'error', error: ServerErrorResponse): void }) => call.emit('error', starting)
      : (_call: unknown, callback: (error: ServerErrorResponse, value: null) => void) => callback(starting, null);
  }
  return handlers;
}
