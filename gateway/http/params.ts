import { z } from 'zod';
import { canonicalSpellingOfAnyType } from '../../services/common/identifiers';
import { canonicalUuid } from '../../services/common/ids';
import type { AnyRoute } from './route';

/**
 * Identifiers are made canonical here, once, at the HTTP edge, before any service sees them
 * (the services refuse any other spelling: services/common/canonical-ids.ts). A UUID is read in any
 * letter case and passed on in lowercase; a value that is no UUID passes unchanged and names no
 * resource (404). A user identifier valid for its type is passed on in that type's canonical form
 * (which does not depend on the type given beside it: services/common/identifiers.ts); an invalid
 * one passes unchanged, for the service to say why it is invalid.
 */
export const resourceId = z
  .string()
  .max(64)
  .describe('A UUID (any letter case)')
  .transform(canonicalUuid);

/** A user identifier, in a path, a query or a body: canonical under every type it is valid for. */
export function userIdentifier(schema: z.ZodString) {
  return schema.transform(canonicalSpellingOfAnyType);
}

const userIdentifierParam = userIdentifier(
  z.string().max(512).describe('The user identifier (an evm_address or email in any letter case is the same user)'),
);

/** Every path parameter of the API and the one schema that reads it. */
export const PATH_PARAMETERS = {
  projectId: resourceId,
  segmentId: resourceId,
  audienceId: resourceId,
  jobId: resourceId,
  keyId: resourceId,
  userIdentifier: userIdentifierParam,
} as const;

export type PathParameter = keyof typeof PATH_PARAMETERS;

/** The params schema of a route: `pathParams('projectId', 'audienceId')`. */
export function pathParams<K extends PathParameter>(...names: K[]): z.ZodObject<{ [N in K]: (typeof PATH_PARAMETERS)[N] }> {
  return z.object(Object.fromEntries(names.map((name) => [name, PATH_PARAMETERS[name]]))) as z.ZodObject<{
    [N in K]: (typeof PATH_PARAMETERS)[N];
  }>;
}

/**
 * Checked when the routes are mounted, so that no route can forget it: every `:param` of a path
 * is declared, and read by its schema in PATH_PARAMETERS.
 */
export function assertPathParamsCanonical(route: AnyRoute): void {
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const shape = (route.params as z.ZodObject<z.ZodRawShape> | undefined)?.shape ?? {};
  for (const name of names) {
    const expected = (PATH_PARAMETERS as Record<string, z.ZodType | undefined>)[name];
    if (!expected || shape[name] !== expected) {
      throw new Error(`${route.operationId}: path parameter :${name} must be declared with pathParams() (gateway/http/params.ts)`);
    }
  }
}
