import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { listenError } from '../../services/platform/config';
import type { Logger } from '../../services/platform/logger';
import type { ErrorBody } from './errors';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

function answerError(res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(body.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json), ...headers });
  res.end(json);
}

/**
 * Prometheus metrics on a port of their own (METRICS_HOST:METRICS_PORT), apart from the public API
 * port, which answers /metrics 404: what the process counts (routes, statuses, memory) is for the
 * operator's scraper only. It serves GET /metrics and nothing else.
 */
export async function startMetricsServer(registry: Registry, address: { host: string; port: number }, logger: Logger): Promise<MetricsServer> {
  const server: Server = createServer({ headersTimeout: 10_000, requestTimeout: 10_000 }, (req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) {
      answerError(res, { status: 404, code: 'ROUTE_NOT_FOUND', message: `this port serves only GET ${METRICS_PATH}`, details: [] });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      answerError(
        res,
        { status: 405, code: 'METHOD_NOT_ALLOWED', message: `${req.method} is not supported here; use GET`, details: [] },
        { Allow: 'GET' },
      );
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be collected');
        answerError(res, { status: 500, code: 'INTERNAL', message: 'the metrics could not be collected', details: [] });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(listenError(error, 'METRICS_PORT', `${address.host}:${address.port}`));
    server.once('error', onError);
    server.listen({ port: address.port, host: address.host }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    // A scrape is short and nobody waits for one cut off: nothing to drain.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
