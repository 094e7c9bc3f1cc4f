import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { matchedRoutePath } from '../../gateway/http/route';

/** A request as the gateway saw it: its method, the route it matched and its status. */
export interface SeenRequest {
  method: string;
  /** The declared route in OpenAPI style (`/api/v1/affiliates/{address}`), or the raw path when no route matched. */
  path: string;
  /** The `type` query parameter: two pairs of SDK methods share a path and differ by it (`/payouts?type=point`). */
  type: string | null;
  status: number;
}

interface Started {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * The requests that reach a gateway of this process, read from Node's own diagnostics channel of
 * HTTP servers, so neither the client (the published @fuul/sdk, whose HTTP client is out of reach)
 * nor the gateway changes for it. Only the gateway listening on `port` is watched.
 */
export class GatewayRequests {
  private started: Started[] = [];
  private readonly onStart = (message: unknown) => {
    const { request, response, server } = message as Started & { server: Server };
    if ((server.address() as AddressInfo | null)?.port === this.port) this.started.push({ request, response });
  };

  constructor(private readonly port: number) {
    subscribe('http.server.request.start', this.onStart);
  }

  /**
   * Runs `action` and answers the requests that arrived while it ran, once it has settled: each one
   * it awaited has been answered by then, so its route and status are known.
   */
  async during<T>(action: () => Promise<T>): Promise<{ outcome: PromiseSettledResult<T>; requests: SeenRequest[] }> {
    this.started = [];
    const outcome = await action().then(
      (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
    );
    const requests = this.started.map(({ request, response }) => {
      const url = new URL(request.url ?? '/', 'http://gateway');
      const route = matchedRoutePath(response as Response);
      return {
        method: request.method ?? '',
        path: route ? route.replace(/:([A-Za-z0-9_]+)/g, '{$1}') : url.pathname,
        type: url.searchParams.get('type'),
        status: response.statusCode,
      };
    });
    this.started = [];
    return { outcome, requests };
  }

  close(): void {
    unsubscribe('http.server.request.start', this.onStart);
  }
}
