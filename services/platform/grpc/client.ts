import {
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  credentials,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { currentRequestId } from '../request-context';
import { channelOptions, type KnownKeys, REQUEST_ID_METADATA_KEY } from './channel-options';

export interface CallSettings {
  /** Overrides the client's default deadline for calls that may legitimately wait. */
  timeoutMs?: number;
}

/** Each unary method of a generated grpc-js client, as `(request, settings?) => Promise<response>`. */
export type PromiseClient<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches any unary method regardless of its types
  [K in KnownKeys<C> as C[K] extends UnaryMethod<any, any> ? K : never]: C[K] extends UnaryMethod<infer Req, infer Res>
    ? (request: Req, settings?: CallSettings) => Promise<Res>
    : never;
};

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

interface GeneratedClientConstructor<C extends Client> {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): C;
  service: Record<string, unknown>;
}

export interface GrpcClient<C extends Client> {
  call: PromiseClient<C>;
  close(): void;
}

/**
 * Wraps a ts-proto grpc-js client so that every call has a deadline and carries the current
 * request id; there is no way to call a service without one.
 */
export function createGrpcClient<C extends Client>(
  Constructor: GeneratedClientConstructor<C>,
  address: string,
  defaultTimeoutMs: number,
): GrpcClient<C> {
  const client = new Constructor(address, credentials.createInsecure(), channelOptions);
  const call: Record<string, (request: unknown, settings?: CallSettings) => Promise<unknown>> = {};
  for (const method of Object.keys(Constructor.service)) {
    const invoke = (client as unknown as Record<string, UnaryMethod<unknown, unknown>>)[method]!.bind(client);
    call[method] = (request, settings) =>
      new Promise((resolve, reject) => {
        const metadata = new Metadata();
        const requestId = currentRequestId();
        if (requestId) metadata.set(REQUEST_ID_METADATA_KEY, requestId);
        const deadline = Date.now() + (settings?.timeoutMs ?? defaultTimeoutMs);
        invoke(request, metadata, { deadline }, (error, response) => (error ? reject(error) : resolve(response)));
      });
  }
  return { call: call as PromiseClient<C>, close: () => client.close() };
}
