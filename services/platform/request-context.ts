import { AsyncLocalStorage } from 'node:async_hooks';

/** What travels with one request: gateway -> gRPC metadata -> jobs -> log lines. */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Request ids arrive from outside (HTTP header, gRPC metadata, job data): accept only tame ones. */
export function isValidRequestId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value);
}
