/**
 * Writes the gateway's OpenAPI document to a file without starting anything:
 *   node -r ./scripts/register-ts.js scripts/web/write-openapi.ts web/generated/openapi.json
 * The web applications generate their API types from it (npm run web:api-types). The route list
 * is the one the gateway serves; its handlers are never called here, so their dependencies are
 * stand-ins that fail loudly if anything reaches for them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_INFO, buildOpenApiDocument } from '../../gateway/openapi/document';
import { apiRoutes } from '../../gateway/routes/api-routes';
import type { RouteDeps } from '../../gateway/routes/route-deps';
import type { SystemDeps } from '../../gateway/routes/system.routes';

function notAvailable<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      throw new Error(`${name}.${String(property)} is not available while writing the OpenAPI document`);
    },
  });
}

const routeDeps: RouteDeps = {
  clients: notAvailable('clients'),
  access: notAvailable('access'),
  signIn: notAvailable('signIn'),
  signatures: notAvailable('signatures'),
  affiliateMessages: notAvailable('affiliateMessages'),
  clock: notAvailable('clock'),
  eventLimits: notAvailable('eventLimits'),
  sharedReads: () => notAvailable('sharedReads'),
  keyRevoked: () => Promise.reject(new Error('keyRevoked is not available while writing the OpenAPI document')),
};
const systemDeps: SystemDeps = { readiness: [], openApiDocument: () => document };

const routes = apiRoutes(routeDeps, systemDeps);
const document = buildOpenApiDocument(routes, API_INFO);

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: write-openapi.ts <file.json>\n');
  process.exit(2);
}
mkdirSync(path.dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
