import type { AddressInfo } from 'node:net';
import { listenError } from '../../services/platform/config';
import type { Logger } from '../../services/platform/logger';
import type { GatewayConfig } from '../config';
import { gracefulClose } from './graceful-close';
import { createGatewayServer, type GatewayRequestListener } from './malformed-requests';
import type { HttpMetrics } from './metrics';
import { startMetricsServer } from './metrics-server';
import { startingApp } from './starting-app';

export interface GatewayListeners {
  /** The API port (PORT, or the port taken when it is 0). */
  port: number;
  /** Where GET /metrics is served (METRICS_PORT, or the port taken when it is 0). */
  metricsPort: number;
  /** The API port answers with this app from now on (503 until then). */
  serve(app: GatewayRequestListener): void;
  /** Closes the API port (its running requests get the grace period), then the metrics port. */
  close(graceMs: number): Promise<void>;
}

/**
 * Binds the gateway's API port and its metrics port, first thing, before any connection to
 * PostgreSQL, Redis or a service is opened (see startingApp for why); the API answers 503 until
 * `serve` gives it the app.
 */
export async function bindGatewayListeners(
  config: Pick<GatewayConfig, 'HOST' | 'PORT' | 'METRICS_HOST' | 'METRICS_PORT' | 'HEADERS_TIMEOUT_MS' | 'REQUEST_TIMEOUT_MS'>,
  metrics: HttpMetrics,
  logger: Logger,
): Promise<GatewayListeners> {
  const starting = startingApp();
  const server = createGatewayServer(starting.listener, logger, {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  const closeServer = gracefulClose(server);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(listenError(error, 'PORT', `${config.HOST}:${config.PORT}`));
    server.once('error', onError);
    // A burst of new connections (a backend replaying a queue of conversions) must wait in the accept queue,
    // not be dropped into SYN retries: Node's default backlog of 511 is below what such bursts open.
    server.listen({ port: config.PORT, host: config.HOST, backlog: 4096 }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  // After PORT, so that a second gateway started on a taken PORT names PORT, not this.
  const metricsServer = await startMetricsServer(metrics.registry, { host: config.METRICS_HOST, port: config.METRICS_PORT }, logger).catch(
    async (error: unknown) => {
      await closeServer(0);
      throw error;
    },
  );
  return {
    // A cluster worker's server has no address of its own when the primary holds the port.
    port: (server.address() as AddressInfo | null)?.port ?? config.PORT,
    metricsPort: metricsServer.port,
    serve: starting.ready,
    close: async (graceMs) => {
      // Stops accepting; idle keep-alive connections close at once, requests in flight are answered
      // with Connection: close, and whatever is still open after the grace period is cut off.
      await closeServer(graceMs);
      await metricsServer.close();
    },
  };
}
