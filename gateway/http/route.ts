import express, { type Express, type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { findUnsafeJson } from '../../services/platform/json-safety';
import type { Logger } from '../../services/platform/logger';
import type { Authenticator } from '../auth/authenticator';
import type { AuthRequirement, Caller, CallerFor } from '../auth/caller';
import { HttpError, zodDetails } from './errors';
import { exactJsonParser } from './exact-json';
import { inputError } from './input-messages';
import { type CheckedPath, type PathParamNames, type PathParams, pathParamNames, pathParamsSchema } from './params';
import { carriesNoBody, checkRequestText, refuseBody } from './request-text';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
}

/** A route's answers by status: what the OpenAPI document lists, and all a handler may return. */
export type Responses = Record<number, ResponseSpec>;

/** A body array that may not exceed a size: refused with 413 before it is validated item by item. */
export interface ArrayLimit {
  field: string;
  max: number;
  code: string;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;
type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** Sent as is, for the few non-JSON endpoints (metrics, docs). */
export interface RawContent {
  contentType: string;
  content: string | Buffer;
}

/**
 * What a handler may return: one of its declared statuses, with a body of that status's schema
 * (or, for a status without a schema, no JSON body). Anything else fails to compile; at run time
 * VALIDATE_RESPONSES checks the same against the schemas.
 */
export type ReplyFor<R extends Responses> = {
  [S in keyof R & number]: R[S] extends { schema: infer Z extends z.ZodType }
    ? { status: S; body: z.output<Z>; headers?: Record<string, string> }
    : { status: S; body?: undefined; raw?: RawContent; headers?: Record<string, string> };
}[keyof R & number];

/** A reply as mountRoutes sends it. */
export interface Reply {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  raw?: RawContent;
  headers?: Record<string, string>;
}

type ApiKeyAuth<Project extends 'path' | 'key'> = Extract<AuthRequirement, { kind: 'api_key' }> & { project: Project };

/** Whom a path admits: a path under `:projectId` is scoped by it; any other path is not (gateway/auth/caller.ts). */
export type AuthFor<Path extends string> =
  'projectId' extends PathParamNames<Path>
    ? ApiKeyAuth<'path'> | Extract<AuthRequirement, { kind: 'session' }>
    : Extract<AuthRequirement, { kind: 'none' | 'platform' | 'user_or_session' }> | ApiKeyAuth<'key'>;

/**
 * One HTTP endpoint, declared once: the same declaration mounts the route, validates its input,
 * checks its caller, and writes its part of the OpenAPI document. Path parameters are not declared
 * beside the path: each `:name` is read by its schema in gateway/http/params.ts.
 */
export interface RouteDeclaration<
  Path extends string,
  A extends AuthRequirement,
  Q extends AnyObject | undefined,
  H extends AnyObject | undefined,
  B extends z.ZodType | undefined,
  R extends Responses,
> {
  method: HttpMethod;
  /** Express syntax (`:param`); the OpenAPI document shows `{param}`. */
  path: Path;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Who may call, and (for project routes) how the project is chosen. */
  auth: A;
  query?: Q;
  headers?: H;
  body?: B;
  /** 'batch' selects the larger body limit. */
  bodyLimit?: 'json' | 'batch';
  arrayLimit?: ArrayLimit;
  /** Keep each number's text as written (gateway/http/exact-json.ts): for bodies whose numbers must not pass through a double. */
  exactNumbers?: boolean;
  responses: R;
}

/** What a handler receives: every part of the request as its schema outputs it, and who is calling. */
export interface HandlerInput<Path extends string, A extends AuthRequirement, Q, H, B> {
  params: PathParams<Path>;
  query: Out<Q>;
  headers: Out<H>;
  body: Out<B>;
  caller: CallerFor<A>;
  req: Request;
}

/**
 * A route's handler. Conditional on R only so that TypeScript infers R from the declaration before
 * it checks the handler: the statuses a handler returns then keep their literal types and are
 * checked against `responses`, whether or not the handler takes an argument.
 */
export type RouteHandler<Path extends string, A extends AuthRequirement, Q, H, B, R extends Responses> = R extends Responses
  ? (input: HandlerInput<Path, A, Q, H, B>) => Promise<ReplyFor<R>>
  : never;

export type RouteDefinition<
  Path extends string = string,
  A extends AuthRequirement = AuthRequirement,
  Q extends AnyObject | undefined = AnyObject | undefined,
  H extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends Responses = Responses,
> = RouteDeclaration<Path, A, Q, H, B, R> & {
  /** The schema of the path's parameters, derived from the path. */
  params: AnyObject | undefined;
  handle: RouteHandler<Path, A, Q, H, B, R>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- erased for the registry; defineRoute keeps each one typed
export type AnyRoute = RouteDefinition<any, any, any, any, any, any>;

export function defineRoute<
  const Path extends string,
  A extends AuthFor<Path>,
  Q extends AnyObject | undefined = undefined,
  H extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const R extends Responses = Responses,
>(
  route: RouteDeclaration<Path, A, Q, H, B, R> & { path: CheckedPath<Path> },
  handle: RouteHandler<Path, A, Q, H, B, R>,
): RouteDefinition<Path, A, Q, H, B, R> {
  assertProjectScope(route);
  return { ...route, params: pathParamsSchema(route.path), handle };
}

/** The run-time half of AuthFor, for routes built without defineRoute's types (aliases, tests). */
function assertProjectScope(route: { path: string; operationId: string; auth: AuthRequirement }): void {
  const underProject = pathParamNames(route.path).includes('projectId');
  const scopedByPath = 'project' in route.auth && route.auth.project === 'path';
  if (underProject !== scopedByPath) {
    throw new Error(
      `${route.operationId}: ${underProject ? "a path under :projectId needs auth.project: 'path'" : "auth.project: 'path' needs :projectId in the path"}`,
    );
  }
}

export interface MountOptions {
  authenticator: Authenticator;
  jsonLimit: string;
  batchLimit: string;
  validateResponses: boolean;
  logger: Logger;
}

/**
 * How deep any JSON body may nest. The API's own shapes are a few levels deep; free-form fields
 * (a segment's condition) have tighter limits of their own in the service.
 */
const MAX_BODY_DEPTH = 64;

function parsePart(schema: z.ZodType | undefined, value: unknown, prefix?: string): unknown {
  if (!schema) return undefined;
  // What PostgreSQL cannot hold (NUL, lone surrogates), numbers JSON.parse turned into Infinity,
  // and nesting past the bound are refused here, for every field of every route, as bad input.
  const unsafe = findUnsafeJson(value, { maxDepth: MAX_BODY_DEPTH, root: prefix });
  if (unsafe) throw new HttpError(400, 'VALIDATION_FAILED', `${unsafe.field}: ${unsafe.reason}`, [unsafe]);
  // A union's issue names the shapes it takes (gateway/http/input-messages.ts); the rest keep zod's words.
  const parsed = schema.safeParse(value, { error: inputError });
  if (parsed.success) return parsed.data;
  const details = zodDetails(parsed.error, prefix);
  const first = details[0]!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  throw new HttpError(400, 'VALIDATION_FAILED', `${first.field}: ${first.reason}${more}`, details);
}

/** Body routes accept JSON only; anything else is refused before it is read. */
const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json')) {
    next(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as JSON with Content-Type: application/json'));
    return;
  }
  next();
};

/** How many leading path segments (static ones only) name a route's group. */
const GROUP_DEPTH = 3;

const staticPrefix = (path: string): string => {
  const segments: string[] = [];
  for (const segment of path.split('/').slice(1, GROUP_DEPTH + 1)) {
    if (segment === '' || segment.startsWith(':')) break;
    segments.push(segment);
  }
  return `/${segments.join('/')}`;
};

const isUnder = (path: string, prefix: string) => prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);

/**
 * The group of each route: its leading static segments (/api/v1/claim-checks), unless another
 * route's prefix is shorter and contains it (/docs beside /docs/init.js), which then takes both.
 * No two groups nest, so a request enters at most one group and meets the routes that can match
 * it in the order they were declared.
 */
export function routeGroups(paths: readonly string[]): string[] {
  const own = paths.map(staticPrefix);
  const distinct = [...new Set(own)];
  return own.map((prefix) => distinct.filter((other) => isUnder(prefix, other)).sort((a, b) => a.length - b.length)[0]!);
}

/**
 * The group a request path belongs to: the declared prefix it is under, found by looking up its
 * leading segments (at most GROUP_DEPTH lookups), in any letter case as Express matches paths.
 * Groups never nest (routeGroups), so the first prefix found is the only one.
 */
function groupFinder<G>(groups: ReadonlyMap<string, G>): (path: string) => G | undefined {
  const byPrefix = new Map([...groups].map(([prefix, group]) => [prefix.toLowerCase(), group]));
  const root = byPrefix.get('/');
  return (path) => {
    const lower = path.toLowerCase();
    let end = 0;
    for (let depth = 0; depth < GROUP_DEPTH; depth += 1) {
      end = lower.indexOf('/', end + 1);
      const group = byPrefix.get(end < 0 ? lower : lower.slice(0, end));
      if (group || end < 0) return group ?? root;
    }
    return root;
  };
}

/**
 * Mounts every route. Routes are grouped into one sub-router per leading static path (/api/v1/payouts,
 * /v1/audience-segments, /healthz, ...), and one layer sends each request to its group by a map lookup:
 * Express tries layers one by one, so a request walks neither the other groups nor their routes.
 */
export function mountRoutes(router: Router | Express, routes: AnyRoute[], options: MountOptions): void {
  const groups = new Map<string, Router>();
  const prefixes = routeGroups(routes.map((route) => route.path));
  const groupOf = (index: number) => {
    const prefix = prefixes[index]!;
    let group = groups.get(prefix);
    if (!group) {
      group = express.Router();
      groups.set(prefix, group);
    }
    return group;
  };
  const parsers = {
    json: express.json({ limit: options.jsonLimit }),
    batch: express.json({ limit: options.batchLimit }),
  };
  const exactParsers = { json: exactJsonParser(options.jsonLimit), batch: exactJsonParser(options.batchLimit) };
  for (const [index, route] of routes.entries()) {
    assertProjectScope(route);
    const admit = async (req: Request, res: Response): Promise<Caller> => {
      res.locals.routePath = route.path;
      // The path's and query's text (NUL, malformed percent-encodings, in any parameter) before anything reads it.
      checkRequestText(req);
      // Ids are canonical before anything reads them, the authenticator's project check included.
      // Malformed params are reported after authentication, by parsePart below.
      const params = route.params?.safeParse(req.params);
      if (params?.success) Object.assign(req.params, params.data);
      // Who is calling is settled before any body is read.
      return options.authenticator.authenticate(req, route.auth);
    };
    const answer = async (req: Request, res: Response, caller: Caller): Promise<void> => {
      if (route.arrayLimit) enforceArrayLimit(req.body, route.arrayLimit);
      // Each part is what its schema outputs, which is what defineRoute typed the handler with.
      const input = {
        params: parsePart(route.params, req.params),
        query: parsePart(route.query, req.query),
        headers: parsePart(route.headers, req.headers),
        body: parsePart(route.body, req.body),
        caller,
        req,
      } as Parameters<AnyRoute['handle']>[0];
      const reply: Reply = await route.handle(input);
      if (options.validateResponses) checkResponse(route, reply, options.logger);
      if (reply.headers) res.set(reply.headers);
      if (reply.raw) res.status(reply.status).type(reply.raw.contentType).send(reply.raw.content);
      else if (reply.body === undefined) res.status(reply.status).end();
      else sendJson(res, reply.status, reply.body);
    };
    const group = groupOf(index);
    if (route.body) {
      const parser = route.exactNumbers ? exactParsers[route.bodyLimit ?? 'json'] : [parsers[route.bodyLimit ?? 'json']];
      group[route.method](
        route.path,
        async (req, res, next) => {
          res.locals.caller = await admit(req, res);
          next();
        },
        requireJson,
        ...parser,
        (req, res) => answer(req, res, res.locals.caller as Caller),
      );
    } else {
      // One layer for a route without a body (most reads, the lookup among them): a request without
      // one is answered at once; one that carries a body goes to refuseBody, after authentication.
      const refuse = refuseBody(route.method, route.path);
      group[route.method](route.path, async (req, res, next) => {
        const caller = await admit(req, res);
        if (carriesNoBody(req)) await answer(req, res, caller);
        else refuse(req, res, (error?: unknown) => (error ? next(error) : void answer(req, res, caller).catch(next)));
      });
    }
  }
  const groupFor = groupFinder(groups);
  (router as Router).use((req, res, next) => {
    const group = groupFor(req.path);
    if (group) group(req, res, next);
    else next();
  });
}

/**
 * A JSON answer, written straight to the response: what res.json sends here (no ETag, no JSON
 * settings), without its content negotiation and header bookkeeping on every request.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const shared = typeof body === 'object' && body !== null ? encodedOnce.get(body) : undefined;
  const json = shared?.json ?? JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', shared?.bytes ?? Buffer.byteLength(json));
  res.end(json);
}

/** The JSON of bodies that answer many requests, encoded once (see sharedBody). */
const encodedOnce = new WeakMap<object, { json: string; bytes: number }>();

/**
 * Marks a body that many requests will be answered with (a shared read's answer): its JSON is
 * written now, once, instead of for each response. The body must not change afterwards.
 */
export function sharedBody<T extends object>(body: T): T {
  const json = JSON.stringify(body);
  encodedOnce.set(body, { json, bytes: Buffer.byteLength(json) });
  return body;
}

/** The declared path of the route that served a request (a metrics label, never the raw path or its casing). */
export function matchedRoutePath(res: Response): string | undefined {
  const path: unknown = res.locals.routePath;
  return typeof path === 'string' ? path : undefined;
}

function enforceArrayLimit(body: unknown, limit: ArrayLimit): void {
  const value = (body as Record<string, unknown> | undefined)?.[limit.field];
  if (Array.isArray(value) && value.length > limit.max) {
    throw new HttpError(413, limit.code, `${limit.field} holds ${value.length} items; at most ${limit.max} are accepted per request`, [
      { field: limit.field, reason: `at most ${limit.max} items` },
    ]);
  }
}

/** Test-time guard that the OpenAPI document tells the truth about every response. */
function checkResponse(route: AnyRoute, reply: Reply, logger: Logger): void {
  const spec = route.responses[reply.status];
  if (!spec) throw new Error(`${route.operationId} answered ${reply.status}, which its OpenAPI entry does not list`);
  if (!spec.schema || reply.raw) return;
  const parsed = spec.schema.safeParse(reply.body);
  if (!parsed.success) {
    logger.error({ route: route.operationId, issues: parsed.error.issues }, 'response does not match its schema');
    throw new Error(`${route.operationId} response does not match its OpenAPI schema`);
  }
}
