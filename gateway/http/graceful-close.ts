import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Closes an HTTP server without waiting on its keep-alive clients. `server.close()` alone stops
 * accepting and closes the connections idle at that moment, but a keep-alive client that sends
 * again keeps its connection, and each answer leaves it open for the next request: the process
 * then waits out the whole grace period. Here, once closing has begun, every answer not yet
 * started carries `Connection: close` (Node closes the connection after it), a connection whose
 * answer had already started is closed once it is idle, and whatever is still open when the grace
 * period ends is cut off.
 *
 * Call it right after creating the server, so that it sees every request; it returns the close.
 */
export function gracefulClose(server: Server): (graceMs: number) => Promise<void> {
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  // Before the application's listener, so that the header is set before any answer can start.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (closing) {
      res.setHeader('Connection', 'close');
      return;
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  let closed: Promise<void> | undefined;
  return (graceMs) =>
    (closed ??= new Promise<void>((resolve) => {
      closing = true;
      for (const res of inFlight) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        // Its headers went out saying keep-alive: close the connection once the answer is complete.
        else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
      }
      const force = setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, graceMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    }));
}
