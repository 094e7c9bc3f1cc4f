import { z } from 'zod';
import { canonicalPrefixOfAnyType, canonicalSpellingOfAnyType, IDENTIFIER_TYPES, isIdentifierType } from '../../services/rules/identifiers';
import { canonicalUuid } from '../../services/rules/ids';

/**
 * Identifiers are made canonical here, once, at the HTTP edge, before any service sees them
 * (the services refuse any other spelling: services/rules/canonical-ids.ts). A UUID is read in any
 * letter case and passed on in lowercase; a value that is no UUID passes unchanged and names no
 * resource (404). A user identifier valid for its type is passed on in that type's canonical form
 * (which does not depend on the type given beside it: services/rules/identifiers.ts); an invalid
 * one passes unchanged, for the service to say why it is invalid.
 */
export const resourceId = z
  .string()
  .max(64)
  .meta({ description: 'A UUID (any letter case)', examples: ['6f1c2a9e-3b7d-4e58-9a0c-2d4b6e8f1a3c'] })
  .transform(canonicalUuid);

/** A user identifier, in a path, a query or a body: canonical under every type it is valid for. */
export function userIdentifier(schema: z.ZodString) {
  return schema.transform(canonicalSpellingOfAnyType);
}

/**
 * A user identifier's type in a query string, the lookup's and every filter's: one of the known types,
 * or a 400 naming the parameter (as the services answer an unknown type), so that a filter with an
 * unknown type never reads as a user without data (an empty list). Every query parameter naming an
 * identifier type uses this one schema (the hostile-input test sends an unknown type to each). A string
 * to TypeScript and in the OpenAPI document (whose clients pass types they read from answers), checked
 * against the types here.
 */
export const identifierTypeQuery = z
  .string()
  .refine((type) => isIdentifierType(type), `must be one of ${IDENTIFIER_TYPES.join(', ')}`)
  .describe(IDENTIFIER_TYPES.join(', '));

/**
 * A search that matches the start of user identifiers (the affiliate list's `q`): made canonical by
 * the same rule as a whole identifier, for a prefix (canonicalPrefixOfAnyType). Surrounding spaces
 * are dropped first.
 */
export function identifierPrefix(schema: z.ZodString) {
  return schema.trim().transform(canonicalPrefixOfAnyType);
}

const userIdentifierParam = userIdentifier(
  z
    .string()
    .max(512)
    .meta({
      description: 'The user identifier (an evm_address or email in any letter case is the same user)',
      examples: ['0x8ba1f109551bd432803012645ac136ddd64dba72'],
    }),
);

/**
 * Every path parameter of the API and the one schema that reads it. Each documents an example, a
 * valid value that names nothing: the access-matrix test fills paths with them.
 */
export const PATH_PARAMETERS = {
  projectId: resourceId,
  segmentId: resourceId,
  audienceId: resourceId,
  jobId: resourceId,
  keyId: resourceId,
  webhookId: resourceId,
  deliveryId: resourceId,
  userIdentifier: userIdentifierParam,
  /** A master affiliate: its affiliate id. */
  agencyId: resourceId,
  applicationId: resourceId,
  /** A wallet address in an SDK-style path (/api/v1/affiliates/{address}). */
  address: userIdentifierParam,
  code: z
    .string()
    .max(64)
    .meta({ description: 'A referral code (its letter case is ignored)', examples: ['summer_2026'] }),
  /** A payout terms' conversion name, matched exactly (the service trims and checks it). */
  conversionName: z
    .string()
    .min(1)
    .max(200)
    .meta({ description: 'The conversion name the payout terms apply to', examples: ['trade'] }),
  /** A conversion's id is the sender's own text: kept exactly as sent, even when it looks like a UUID. */
  conversionId: z
    .string()
    .min(1)
    .max(128)
    .meta({ description: 'The id the conversion was sent with', examples: ['order-8f3a2c'] }),
} as const;

export type PathParameter = keyof typeof PATH_PARAMETERS;

/** The parameter names of an Express path, as a type: `/a/:projectId/b/:keyId` is `'projectId' | 'keyId'`. */
export type PathParamNames<Path extends string> = Path extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | PathParamNames<Tail>
    : Rest
  : never;

/** What a route's handler reads as `params`: each parameter its path declares, as its schema reads it. */
export type PathParams<Path extends string> = {
  [N in PathParamNames<Path> & PathParameter]: z.output<(typeof PATH_PARAMETERS)[N]>;
};

/** The path itself when every parameter has a schema in PATH_PARAMETERS; otherwise a type naming the stranger. */
export type CheckedPath<Path extends string> = [Exclude<PathParamNames<Path>, PathParameter>] extends [never]
  ? Path
  : `no schema for path parameter :${Exclude<PathParamNames<Path>, PathParameter>} (gateway/http/params.ts)`;

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/**
 * The schema that reads a path's parameters, each by its one schema in PATH_PARAMETERS (so every id
 * is made canonical before anything reads it); undefined for a path without parameters.
 */
export function pathParamsSchema(path: string): z.ZodObject<z.ZodRawShape> | undefined {
  const names = pathParamNames(path);
  if (names.length === 0) return undefined;
  return z.object(
    Object.fromEntries(
      names.map((name) => {
        const schema = (PATH_PARAMETERS as Record<string, z.ZodType | undefined>)[name];
        if (!schema) throw new Error(`${path}: no schema for path parameter :${name} (gateway/http/params.ts)`);
        return [name, schema];
      }),
    ),
  );
}
