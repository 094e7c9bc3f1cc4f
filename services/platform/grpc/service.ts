import { randomUUID } from 'node:crypto';
import type { handleUnaryCall, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { assertCanonicalIds } from '../../rules/canonical-ids';
import type { Logger } from '../logger';
import { isValidRequestId, runWithRequestContext } from '../request-context';
import { type KnownKeys, REQUEST_ID_METADATA_KEY } from './channel-options';
import { toGrpcStatus } from './errors';

export interface CallContext {
  requestId: string;
  /** The caller's deadline, so long waits (e.g. ?wait=true) end before the caller gives up. */
  deadline: Date | undefined;
}

/** A service's handlers as plain async functions: transport concerns stay in this file. */
export type UnaryHandlers<S> = {
  [K in KnownKeys<S>]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (request: Req, context: CallContext) => Promise<Res> : never;
};

export interface ServiceOptions<S> {
  /**
   * Per method, a repeated field whose items are independent requests (a batch of lookups): the
   * handler checks each item's ids itself, so that one bad item fails alone.
   */
  idsCheckedPerItem?: Partial<Record<KnownKeys<S>, string>>;
}

/**
 * Adapts async handlers to grpc-js: request id from metadata into the log context, ids that are
 * not canonical refused (services/rules/canonical-ids.ts) before any handler runs, domain errors
 * to gRPC status, unknown errors to INTERNAL with the stack only in the log.
 */
export function implementService<S>(serviceName: string, handlers: UnaryHandlers<S>, logger: Logger, options: ServiceOptions<S> = {}): S {
  const implementation: Record<string, handleUnaryCall<unknown, unknown>> = {};
  for (const [method, handler] of Object.entries<(req: unknown, ctx: CallContext) => Promise<unknown>>(handlers)) {
    const perItem = (options.idsCheckedPerItem as Record<string, string | undefined> | undefined)?.[method];
    const skipFields = perItem ? [perItem] : [];
    implementation[method] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const incoming = call.metadata.get(REQUEST_ID_METADATA_KEY)[0];
      const requestId = isValidRequestId(incoming) ? incoming : randomUUID();
      const rawDeadline = call.getDeadline();
      const deadline = rawDeadline instanceof Date ? rawDeadline : Number.isFinite(rawDeadline) ? new Date(rawDeadline) : undefined;
      runWithRequestContext({ requestId }, () => {
        const run = async () => {
          assertCanonicalIds(call.request, { skipFields });
          return handler(call.request, { requestId, deadline });
        };
        run().then(
          (response) => callback(null, response),
          (error: unknown) => {
            const { status, internal } = toGrpcStatus(error);
            if (internal) logger.error({ err: error, rpc: `${serviceName}/${method}` }, 'rpc failed');
            else logger.debug({ rpc: `${serviceName}/${method}`, code: status.code }, 'rpc refused');
            callback(status);
          },
        );
      });
    };
  }
  return implementation as S;
}
