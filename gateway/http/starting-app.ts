import type { GatewayRequestListener } from './malformed-requests';
import { HttpError } from './errors';

/** Soon: start-up takes seconds (migrations, Redis), not minutes. */
const STARTING_RETRY_AFTER_SECONDS = 1;

export interface StartingApp {
  /** What the HTTP server serves: 503 while the gateway starts, then the app given to `ready`. */
  listener: GatewayRequestListener;
  ready(app: GatewayRequestListener): void;
}

/**
 * The gateway binds its ports before it opens any connection (PostgreSQL, Redis, the services):
 * on Linux an outgoing connection takes a local port from the ephemeral range, and one opened
 * during start-up could take the gateway's port just before the bind. A request that arrives
 * meanwhile is answered 503 SERVICE_UNAVAILABLE with Retry-After, in the standard error body.
 */
export function startingApp(): StartingApp {
  let app: GatewayRequestListener | undefined;
  return {
    listener: (req, res, next) => {
      if (app) {
        app(req, res, next);
        return;
      }
      next(
        new HttpError(503, 'SERVICE_UNAVAILABLE', 'the gateway is starting; try again shortly', [], {
          'Retry-After': String(STARTING_RETRY_AFTER_SECONDS),
        }),
      );
    },
    ready: (started) => {
      app = started;
    },
  };
}
