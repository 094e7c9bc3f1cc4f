/**
 * A small typed fetch over the gateway's API. Paths, parameters, bodies and answers are the types
 * openapi-typescript generates from /openapi.json (web/generated/api.d.ts, `npm run web:api-types`);
 * nothing here restates a response shape. A refused request throws ApiError carrying the API's
 * standard error body, whose `message` is what the screens show.
 */
import type { paths } from '../../generated/api';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type ApiPath = keyof paths;
/** The methods a path has. */
export type MethodOf<P extends ApiPath> = { [M in Method]-?: [NonNullable<paths[P][M]>] extends [never] ? never : M }[Method];
type Operation<P extends ApiPath, M extends Method> = NonNullable<paths[P][M]>;

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type SuccessStatus = 200 | 201 | 202 | 204;
type Success<Op> = Op extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: JsonOf<R[S]> }[keyof R & SuccessStatus] : never;
type ParametersOf<Op> = Op extends { parameters: infer X } ? X : never;
type PathParameters<Op> = ParametersOf<Op> extends { path: infer X } ? X : never;
type QueryParameters<Op> = ParametersOf<Op> extends { query?: infer X } ? X : never;
type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** What an operation answers when it succeeds. */
export type ApiResult<P extends ApiPath, M extends MethodOf<P>> = Success<Operation<P, M>>;
/** An operation's JSON body. */
export type ApiBody<P extends ApiPath, M extends MethodOf<P>> = BodyOf<Operation<P, M>>;
/** An operation's query parameters. */
export type ApiQuery<P extends ApiPath, M extends MethodOf<P>> = QueryParameters<Operation<P, M>>;

export interface RequestOptions<Op> {
  path?: PathParameters<Op>;
  query?: QueryParameters<Op>;
  body?: BodyOf<Op>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface FieldViolation {
  field: string;
  reason: string;
}

/** A request the API refused (or could not answer): its status, stable code, message and field violations. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldViolation[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isErrorBody(value: unknown): value is { code: string; message: string; details?: FieldViolation[] } {
  const body = value as { code?: unknown; message?: unknown };
  return typeof body === 'object' && body !== null && typeof body.code === 'string' && typeof body.message === 'string';
}

/** `/a/{projectId}/b` with { projectId: 'x' } -> `/a/x/b`, each value percent-encoded. */
export function fillPath(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${template}`);
    return encodeURIComponent(value);
  });
}

export function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export type ApiRequest = <P extends ApiPath, M extends MethodOf<P>>(
  method: M,
  path: P,
  options?: RequestOptions<Operation<P, M>>,
) => Promise<ApiResult<P, M>>;

/** A request function that sends `Authorization: Bearer <token>` when there is one. */
export function createApiClient(token: () => string | null, baseUrl = ''): ApiRequest {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const credential = token();
    if (credential) headers.authorization = `Bearer ${credential}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const url = `${baseUrl}${fillPath(path, options.path as Record<string, string> | undefined)}${queryString(options.query as Record<string, unknown> | undefined)}`;
    let response: Response;
    try {
      response = await fetch(url, { method: method.toUpperCase(), headers, body, signal: options.signal });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text && response.headers.get('content-type')?.includes('application/json')) parsed = JSON.parse(text);
    if (!response.ok) {
      if (isErrorBody(parsed)) throw new ApiError(response.status, parsed.code, parsed.message, parsed.details ?? []);
      throw new ApiError(response.status, 'HTTP_ERROR', `The server answered ${response.status} ${response.statusText}`.trim());
    }
    return parsed as never;
  };
}
