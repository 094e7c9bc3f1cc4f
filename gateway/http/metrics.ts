import type { RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Logger } from '../../services/platform/logger';
import type { SharedReadObserver } from '../../services/platform/shared-reads';
import { matchedRoutePath } from './route';

export interface HttpMetrics {
  registry: Registry;
  /** Records one request (metrics, and the access log line). */
  middleware: RequestHandler;
  /** Counts what became of each read of a shared read (services/platform/shared-reads.ts) named `read`. */
  sharedReads(read: string): SharedReadObserver;
}

/** Prometheus metrics labelled by route pattern (never by raw path, which would explode cardinality). */
/** A request this slow is logged at info even when only errors are. */
const SLOW_REQUEST_SECONDS = 1;

export function createHttpMetrics(logger: Logger, accessLog: 'errors' | 'all'): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // The label sets are few (routes x methods x statuses): each one's series is looked up once, not
  // hashed from its labels on every request.
  const series = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      found = { requests: requests.labels({ method, route, status: String(status) }), duration: duration.labels({ method, route }) };
      series.set(key, found);
    }
    return found;
  };

  // One listener for every response ('finish' comes once; no closure per request): the start travels on the response.
  function recordFinished(this: Response): void {
    const seconds = Number(process.hrtime.bigint() - (this.locals.requestStartedAt as bigint)) / 1e9;
    const { method } = this.req;
    const route = matchedRoutePath(this) ?? 'unmatched';
    const status = this.statusCode;
    const { requests: requestCount, duration: requestDuration } = seriesOf(method, route, status);
    requestCount.inc();
    requestDuration.observe(seconds);
    // Every request at info costs more CPU than the lookup itself does; metrics count them all anyway.
    const level = accessLog === 'all' || status >= 400 || seconds >= SLOW_REQUEST_SECONDS ? 'info' : 'debug';
    // The line is built only when it will be written (the level is usually above debug).
    if (logger.isLevelEnabled(level)) logger[level]({ method, route, status, duration_ms: Math.round(seconds * 1e4) / 10 }, 'request');
  }

  const middleware: RequestHandler = (_req, res, next) => {
    res.locals.requestStartedAt = process.hrtime.bigint();
    res.on('finish', recordFinished);
    next();
  };
  const sharedReads = new Counter({
    name: 'gateway_shared_reads_total',
    help: "Reads of a shared read by outcome: computed (began a service call) or shared (answered by another read's call or snapshot)",
    labelNames: ['read', 'outcome'] as const,
    registers: [registry],
  });
  return {
    registry,
    middleware,
    sharedReads: (read) => {
      const computed = sharedReads.labels({ read, outcome: 'computed' });
      const shared = sharedReads.labels({ read, outcome: 'shared' });
      return (outcome) => (outcome === 'computed' ? computed : shared).inc();
    },
  };
}
