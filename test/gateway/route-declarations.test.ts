import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import type { Authenticator } from '../../gateway/auth/authenticator';
import { errorHandler } from '../../gateway/http/errors';
import { PATH_PARAMETERS } from '../../gateway/http/params';
import { type AnyRoute, defineRoute, mountRoutes, routeGroups } from '../../gateway/http/route';
import { createLogger } from '../../services/platform/logger';

/**
 * How a route is declared (gateway/http/route.ts). The `@ts-expect-error` lines are half of these
 * tests: `npm test` type-checks this file first, and fails when a declaration that must not compile does.
 */
const base = { method: 'get', operationId: 'things', summary: 'Things', tags: ['Test'] } as const;
const none = { kind: 'none' } as const;
const admin = { kind: 'api_key', roles: ['admin'], project: 'path' } as const;
const service = { kind: 'api_key', roles: ['service_role'], project: 'key' } as const;
const thing = z.object({ name: z.string() });

describe('a route declaration', () => {
  it('reads each path parameter with its one shared schema, taken from the path itself', () => {
    const route = defineRoute(
      { ...base, path: '/api/v1/projects/:projectId/audiences/:audienceId', auth: admin, responses: { 204: { description: 'Done' } } },
      async ({ params }) => {
        const ids: { projectId: string; audienceId: string } = params;
        void ids;
        // @ts-expect-error -- the path declares no :jobId, so a handler cannot read one
        void params.jobId;
        return { status: 204 };
      },
    );
    expect(route.params?.shape).toEqual({ projectId: PATH_PARAMETERS.projectId, audienceId: PATH_PARAMETERS.audienceId });
    const plain = defineRoute({ ...base, path: '/healthz', auth: none, responses: { 204: { description: 'Done' } } }, async () => ({ status: 204 }));
    expect(plain.params).toBeUndefined();
  });

  it('refuses a path parameter that has no shared schema', () => {
    expect(() =>
      defineRoute(
        // @ts-expect-error -- :thingId has no schema in PATH_PARAMETERS
        { ...base, path: '/v1/things/:thingId', auth: service, responses: { 204: { description: 'Done' } } },
        async () => ({ status: 204 }),
      ),
    ).toThrow(/:thingId/);
  });

  it('says how the project is chosen: under :projectId by the path, elsewhere by the key, never left out', () => {
    const responses = { 204: { description: 'Done' } };
    const handle = async () => ({ status: 204 }) as const;
    expect(() => defineRoute({ ...base, path: '/api/v1/projects/:projectId/things', auth: admin, responses }, handle)).not.toThrow();
    expect(() => defineRoute({ ...base, path: '/v1/things', auth: service, responses }, handle)).not.toThrow();
    expect(() =>
      defineRoute(
        // @ts-expect-error -- a path under :projectId must be scoped by it
        { ...base, path: '/api/v1/projects/:projectId/things', auth: none, responses },
        handle,
      ),
    ).toThrow(/auth\.project: 'path'/);
    expect(() =>
      defineRoute(
        // @ts-expect-error -- a key of another project would act in its own project under this path
        { ...base, path: '/api/v1/projects/:projectId/things', auth: service, responses },
        handle,
      ),
    ).toThrow(/auth\.project: 'path'/);
    expect(() =>
      defineRoute(
        // @ts-expect-error -- 'path' on a path without :projectId
        { ...base, path: '/v1/things', auth: admin, responses },
        handle,
      ),
    ).toThrow(/needs :projectId/);
    expect(() =>
      defineRoute(
        // @ts-expect-error -- a wallet session acts only in the project its path names
        { ...base, path: '/v1/things', auth: { kind: 'session', project: 'path' }, responses },
        handle,
      ),
    ).toThrow(/needs :projectId/);
  });

  it('lets a handler return only its declared statuses, each with a body of its schema', () => {
    const responses = { 200: { description: 'A thing', schema: thing }, 204: { description: 'Nothing' } };
    const declaration = { ...base, path: '/v1/things' as const, auth: service, responses };
    defineRoute(declaration, async () => ({ status: 200, body: { name: 'a' } }));
    defineRoute(declaration, async () => ({ status: 204 }));
    // @ts-expect-error -- 201 is not among the declared responses
    defineRoute(declaration, async () => ({ status: 201, body: { name: 'a' } }));
    // @ts-expect-error -- the body does not match the schema of 200
    defineRoute(declaration, async () => ({ status: 200, body: { name: 1 } }));
    // @ts-expect-error -- 204 declares no body
    defineRoute(declaration, async () => ({ status: 204, body: { name: 'a' } }));
    expect(Object.keys(declaration.responses)).toEqual(['200', '204']);
  });

  it('is also checked at run time with VALIDATE_RESPONSES: an undeclared status or a wrong body answers 500 instead', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const authenticator = { authenticate: async () => ({ kind: 'anonymous', address: '127.0.0.1' }) } as unknown as Authenticator;
    const answer = (reply: unknown): AnyRoute =>
      defineRoute(
        { ...base, path: '/things', auth: none, responses: { 200: { description: 'A thing', schema: thing } } },
        async () => reply as never,
      );
    const router = express.Router();
    const app = express();
    app.use(router);
    app.use(errorHandler(logger));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
    try {
      const options = { authenticator, jsonLimit: '1kb', batchLimit: '1kb', validateResponses: true, logger };
      const replies: Array<[unknown, number]> = [
        [{ status: 200, body: { name: 'a' } }, 200],
        [{ status: 201, body: { name: 'a' } }, 500],
        [{ status: 200, body: { name: 1 } }, 500],
      ];
      for (const [reply, expected] of replies) {
        router.stack.length = 0;
        mountRoutes(router, [answer(reply)], options);
        expect((await fetch(url)).status).toBe(expected);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the routing groups', () => {
  it('group routes by their leading static segments, a shorter prefix taking in the longer ones it contains', () => {
    expect(
      routeGroups([
        '/api/v1/claim-checks',
        '/api/v1/claim-checks/close',
        '/api/v1/payouts/leaderboard/payouts',
        '/api/v1/projects/:projectId/currencies',
        '/v1/audience-segments/:segmentId/entries',
        '/docs',
        '/docs/init.js',
        '/healthz',
      ]),
    ).toEqual([
      '/api/v1/claim-checks',
      '/api/v1/claim-checks',
      '/api/v1/payouts',
      '/api/v1/projects',
      '/v1/audience-segments',
      '/docs',
      '/docs',
      '/healthz',
    ]);
  });

  it('answer each request with the first declared route that matches it, whatever its group', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const authenticator = { authenticate: async () => ({ kind: 'anonymous', address: '127.0.0.1' }) } as unknown as Authenticator;
    const named = (path: string, name: string): AnyRoute =>
      defineRoute({ ...base, path: path as '/things', auth: none, responses: { 200: { description: 'A thing', schema: thing } } }, async () => ({
        status: 200,
        body: { name },
      }));
    const app = express();
    const router = express.Router();
    mountRoutes(router, [named('/a/b/:userIdentifier', 'param'), named('/a/b/c/d', 'static'), named('/a', 'root'), named('/a/b/c', 'fixed')], {
      authenticator,
      jsonLimit: '1kb',
      batchLimit: '1kb',
      validateResponses: true,
      logger,
    });
    app.use(router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answers: Record<string, string> = {};
      for (const path of ['/a', '/a/b/c', '/a/b/x', '/a/b/c/d'])
        answers[path] = ((await (await fetch(`${origin}${path}`)).json()) as { name: string }).name;
      // '/a/b/c' is declared after '/a/b/:id', which matches it first.
      expect(answers).toEqual({ '/a': 'root', '/a/b/c': 'param', '/a/b/x': 'param', '/a/b/c/d': 'static' });
      // A request finds its group as Express matches paths: in any letter case, with or without a trailing slash.
      for (const [path, name] of [
        ['/A/B/C/D', 'static'],
        ['/a/', 'root'],
        ['/a/b/c/d/', 'static'],
      ])
        expect(((await (await fetch(`${origin}${path}`)).json()) as { name: string }).name).toBe(name);
      // A path under no group (nor beside one: /ab is not under /a) is left to what follows the routes.
      for (const path of ['/ab', '/b/a', '/']) expect((await fetch(`${origin}${path}`)).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
