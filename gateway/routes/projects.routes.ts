import { z } from 'zod';
import type { ApiKeyRecord } from '../access/api-key.repository';
import type { IssuedApiKey } from '../access/access.service';
import { API_KEY_ROLES } from '../access/access.database';
import { pageInfo, toPage } from '../../services/rules/pagination';
import { listBody, listSchema, pageQuery, pageRequest } from '../http/list';
import { type AnyRoute, defineRoute } from '../http/route';
import type { RouteDeps } from './route-deps';
import { projectAdmin, projectReader } from './route-access';

const role = z.enum(API_KEY_ROLES);
const issuedKeySchema = z.object({
  id: z.string(),
  role,
  name: z.string(),
  key: z.string().describe('The secret; shown in this response only'),
  created_at: z.string(),
});
const apiKeySchema = z.object({
  id: z.string(),
  role,
  name: z.string(),
  key_prefix: z.string().describe('The first characters of the key, to tell keys apart'),
  created_at: z.string(),
});
const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  api_keys: z.array(issuedKeySchema).describe('One key of each role: admin, service_role, read_only, send:tracking_event'),
});

function presentIssued({ record, key }: IssuedApiKey) {
  return { id: record.id, role: record.role, name: record.name, key, created_at: record.createdAt.toISOString() };
}

function presentKey(record: ApiKeyRecord) {
  return { id: record.id, role: record.role, name: record.name, key_prefix: record.keyPrefix, created_at: record.createdAt.toISOString() };
}

/** Projects (platform key) and their API keys (admin keys). */
export function projectRoutes({ access, keyRevoked }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects',
        operationId: 'createProject',
        summary: 'Create a project with one API key of each role',
        description: 'Needs the deployment’s PLATFORM_API_KEY; answers 403 when the deployment has none configured.',
        tags: ['Projects'],
        auth: { kind: 'platform' },
        body: z.strictObject({ name: z.string().max(1_000) }),
        responses: { 201: { description: 'The project and its keys (shown only here)', schema: projectSchema } },
      },
      async ({ body }) => {
        const { project, keys } = await access.createProject(body.name);
        return {
          status: 201,
          body: { id: project.id, name: project.name, created_at: project.createdAt.toISOString(), api_keys: keys.map(presentIssued) },
        };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/api-keys',
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          '`role`: admin (the dashboard), service_role (the project’s backend), read_only (reads), or send:tracking_event: a key ' +
          'that may only send tracking events (POST /api/v1/events), meant to be embedded in a web page with the @fuul/sdk; ' +
          'every other endpoint answers it 403.',
        tags: ['Projects'],
        auth: projectAdmin,
        body: z.strictObject({ role, name: z.string().max(1_000) }),
        responses: { 201: { description: 'The key; its secret is shown only here', schema: issuedKeySchema } },
      },
      async ({ body, caller }) => ({
        status: 201,
        body: presentIssued(await access.createApiKey(caller.projectId, body.role, body.name)),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/api-keys',
        operationId: 'listApiKeys',
        summary: 'List the project’s active API keys (without secrets)',
        tags: ['Projects'],
        auth: projectAdmin,
        query: z.object(pageQuery),
        responses: { 200: { description: 'A page of keys', schema: listSchema(apiKeySchema) } },
      },
      async ({ query, caller }) => {
        const page = toPage(pageRequest(query));
        const { records, total } = await access.listApiKeys(caller.projectId, page);
        return {
          status: 200,
          body: listBody({ results: records, pageInfo: pageInfo(page, total) }, presentKey),
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/api-keys/current',
        operationId: 'getCurrentApiKey',
        summary: 'The API key the request is made with (without its secret)',
        description:
          'Its id, role, name and prefix: what a client signed in with a key reads to know what the key may do (the admin ' +
          'dashboard offers no change to a read_only key). Admin and read_only keys.',
        tags: ['Projects'],
        auth: projectReader,
        responses: { 200: { description: 'The key', schema: apiKeySchema } },
      },
      async ({ caller }) => ({ status: 200, body: presentKey(await access.getApiKey(caller.projectId, caller.keyId)) }),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/api-keys/:keyId',
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description: 'The key answers 401 from then on. The last admin key of a project cannot be revoked (409 LAST_ADMIN_KEY).',
        tags: ['Projects'],
        auth: projectAdmin,
        responses: { 204: { description: 'Revoked' }, 409: { description: 'LAST_ADMIN_KEY' } },
      },
      async ({ params, caller }) => {
        await access.revokeApiKey(caller.projectId, params.keyId);
        await keyRevoked(params.keyId);
        return { status: 204 };
      },
    ),
  ];
}
