import { z } from 'zod';
import { API_KEY_ROLES, type ApiKeyRole } from '../access/access.database';
import type { AuthRequirement } from '../auth/caller';
import type { AnyRoute, ResponseSpec } from '../http/route';

const errorSchema = z
  .object({
    status: z.number().int().describe('The HTTP status, repeated'),
    code: z.string().describe('Stable, machine-readable error code, e.g. AUDIENCE_ENTRY_EXISTS'),
    message: z.string().describe('A sentence a person can act on'),
    details: z
      .array(z.object({ field: z.string(), reason: z.string() }))
      .describe('Field violations, e.g. { field: "entries[3].identifier", reason: "..." }'),
  })
  .describe('Every error response has this body');

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    'Invalid input; `details` names each offending field. Nothing was changed. Any field of any body is refused when it holds ' +
    'the NUL character or a lone UTF-16 surrogate (in a value or an object key), a number beyond a double (1e400), or nests more ' +
    'than 64 levels; so is a path id or query parameter (known or not, name or value) holding the NUL character, before any credential ' +
    'is checked. A malformed percent-encoding in the path is INVALID_PATH_ENCODING, in the query string (any parameter) ' +
    'INVALID_QUERY_ENCODING; a body sent to an operation that takes none, BODY_NOT_ALLOWED; a request that is not valid HTTP, ' +
    'MALFORMED_REQUEST. Query parameters the operation does not list are ignored.',
  401:
    'UNAUTHENTICATED: missing, unknown, expired or revoked credential. WRONG_CREDENTIAL_KIND: a valid credential of another kind ' +
    'than this endpoint takes (e.g. an API key where a wallet session token is needed); the message names the kind it takes',
  403: 'The credential is valid but its role may not call this endpoint',
  404: 'Not found (ids of other projects are not found either)',
  413: 'The body, or an array in it, is larger than this endpoint accepts',
  415: 'The body is not JSON',
  429: 'Rate limit exceeded; see Retry-After',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE: the request line (path and query string) and headers together exceed 16 KB',
  500: 'Unexpected server error; the X-Request-Id header identifies it',
  503: 'A service this endpoint needs is unavailable',
  504: 'A service this endpoint needs did not answer in time',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || (object.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: propertySchema,
    };
  });
}

function errorStatuses(route: AnyRoute): number[] {
  // Any request may be malformed or oversize before a route sees it (gateway/http/malformed-requests.ts).
  const statuses = new Set<number>([400, 431, 500]);
  if (route.auth.kind !== 'none') statuses.add(401).add(403);
  if (route.params) statuses.add(404);
  if (route.body) statuses.add(413).add(415);
  statuses.add(429);
  if (route.tags.some((tag) => tag !== 'System')) statuses.add(503).add(504);
  return [...statuses].filter((status) => !(status in route.responses));
}

/**
 * Who may call an operation, in the document itself: `x-access` for machines (the access-matrix test
 * walks every operation by it), and `security` with the API key roles as OpenAPI 3.1 role names.
 * `credential` names the security scheme (or `none`); `project` says how the project is chosen:
 * `path` (its `{projectId}`: a key of another project answers 404) or `key` (the API key's own).
 */
export type Access =
  | { credential: 'none' }
  | { credential: 'platformKey' }
  | { credential: 'apiKey'; roles: ApiKeyRole[]; project: 'path' | 'key' }
  | { credential: 'walletSession'; project: 'path' }
  /** Either credential: an API key of `roles` in its own project, or a wallet session in the project of the `project_id` query parameter. */
  | { credential: 'apiKeyOrWalletSession'; roles: ApiKeyRole[]; project: 'key'; walletSessionProject: 'query' };

function accessOf(auth: AuthRequirement): Access {
  switch (auth.kind) {
    case 'none':
      return { credential: 'none' };
    case 'platform':
      return { credential: 'platformKey' };
    case 'api_key':
      return { credential: 'apiKey', roles: [...auth.roles], project: auth.project };
    case 'session':
      return { credential: 'walletSession', project: auth.project };
    case 'user_or_session':
      return { credential: 'apiKeyOrWalletSession', roles: [...auth.roles], project: auth.project, walletSessionProject: 'query' };
  }
}

function security(access: Access): Array<Record<string, string[]>> {
  if (access.credential === 'none') return [];
  // Alternatives: OpenAPI lists each accepted scheme as its own requirement.
  if (access.credential === 'apiKeyOrWalletSession') return [{ apiKey: access.roles }, { walletSession: [] }];
  return [{ [access.credential]: access.credential === 'apiKey' ? access.roles : [] }];
}

const ACCESS_DESCRIPTION =
  'Each operation states who may call it in `x-access`: `credential` is the security scheme it takes (`none`, `platformKey`, ' +
  '`apiKey`, `walletSession`), `roles` the API key roles it admits (also listed in `security`), and `project` how the project ' +
  "is chosen: `path` (the path's projectId; an API key of another project answers 404) or `key` (the API key's own project). " +
  '`apiKeyOrWalletSession` takes either: an API key of the listed roles (its own project), or a wallet session token acting for ' +
  'its own wallet in the project named by the `project_id` query parameter (`walletSessionProject: query`). ' +
  'No credential answers 401 UNAUTHENTICATED, a valid credential of another kind 401 WRONG_CREDENTIAL_KIND, an API key of a ' +
  'role not listed 403 FORBIDDEN.';

/** How every response writes a chain id (services/rules/payout-vocabulary.ts), and where the Fuul SDK's types keep a string. */
export const CHAIN_ID_RULE =
  'Chain ids are JSON numbers, as EIP-155 chain ids are (currencies, conversions, movements, vouchers, affiliate earnings, ' +
  'webhook events), except in the shapes the published @fuul/sdk types as strings: `currency_chain_id` of the claim-check ' +
  'list, totals and history, and `chain_id` of the payouts leaderboard.';

/** The one vocabulary of payout kinds (specification §2.12). */
export const PAYOUT_KIND_RULE =
  'A payout kind is named `affiliate_payout`, `end_user_payout` or `agency_payout` in every response and filter (movements, ' +
  "conversions, claim checks, affiliate history, webhook events); only a voucher's on-chain `reason` is numeric (0, 1, 2, in that " +
  "order). The leaderboard's `user_type` (`affiliate`, `end_user`, as the Fuul SDK sends it) names whose payouts are ranked.";

/** The document's `info`: what the gateway serves and what scripts/web/write-openapi.ts writes. */
export const API_INFO = {
  title: 'Referral platform API',
  version: '1.0.0',
  description:
    'Audiences, affiliate tax information and claims for incentive programs. Errors share one body: ' +
    '`{ status, code, message, details }`. Lists share one shape: `{ results, total_results, page, page_size }`. ' +
    `${CHAIN_ID_RULE} ${PAYOUT_KIND_RULE}`,
};

/** What GET /openapi.json answers, as far as its route declares it. */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  })
  .describe('An OpenAPI 3.1 document');

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** OpenAPI 3.1, generated from the same route declarations that serve the API. */
export function buildOpenApiDocument(routes: AnyRoute[], info: { title: string; version: string; description: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const roles = route.auth.kind === 'api_key' || route.auth.kind === 'user_or_session' ? `\n\nAPI key roles: ${route.auth.roles.join(', ')}.` : '';
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries<ResponseSpec>(route.responses)) {
      const schema = spec.schema ? jsonSchema(spec.schema, 'output') : Number(status) >= 400 ? { $ref: '#/components/schemas/Error' } : undefined;
      responses[status] = {
        description: spec.description,
        ...(schema ? { content: { 'application/json': { schema } } } : {}),
      };
    }
    for (const status of errorStatuses(route)) {
      responses[String(status)] = {
        description: ERROR_DESCRIPTIONS[status],
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const access = accessOf(route.auth);
    (paths[path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      description: `${route.description ?? ''}${roles}`.trim() || undefined,
      tags: route.tags,
      security: security(access),
      'x-access': access,
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query'), ...parameters(route.headers, 'header')],
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0' as const,
    info: { ...info, description: `${info.description}\n\n${ACCESS_DESCRIPTION}` },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: `A project API key, of one role: ${API_KEY_ROLES.join(', ')}`,
          'x-roles': [...API_KEY_ROLES],
        },
        platformKey: { type: 'http', scheme: 'bearer', description: 'The PLATFORM_API_KEY of this deployment' },
        walletSession: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A wallet session token from Sign-In with Ethereum (POST /api/v1/auth/nonce, sign the message, POST /api/v1/auth/verify). ' +
            'It acts for that address only and expires after SESSION_TTL_SECONDS.',
        },
      },
      schemas: { Error: jsonSchema(errorSchema, 'output') },
    },
  };
}
