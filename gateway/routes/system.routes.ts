import { z } from 'zod';
import { type AnyRoute, defineRoute } from '../http/route';
import { WEB_APP_CSP } from '../http/security-headers';
import { docsInitScript, docsPageHtml } from '../openapi/docs-page';
import { type OpenApiDocument, openApiDocumentSchema } from '../openapi/document';

/** Prometheus metrics are not among these routes: they have a port of their own (gateway/http/metrics-server.ts). */
export interface SystemDeps {
  /** Each dependency readiness depends on, with a check that resolves true when it answers. */
  readiness: Array<{ name: string; check(): Promise<boolean> }>;
  openApiDocument(): OpenApiDocument;
}

const readinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['up', 'down'])),
});

const READINESS_TIMEOUT_MS = 2_000;

async function checkWithin(check: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const none = { kind: 'none' } as const;
const tags = ['System'];

export function systemRoutes(deps: SystemDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/healthz',
        operationId: 'health',
        summary: 'Liveness: the gateway process is up',
        tags,
        auth: none,
        responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } },
      },
      async () => ({ status: 200, body: { status: 'ok' } }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/readyz',
        operationId: 'ready',
        summary: 'Readiness: PostgreSQL, Redis and every gRPC service the gateway uses answer',
        tags,
        auth: none,
        responses: {
          200: { description: 'Ready', schema: readinessSchema },
          503: { description: 'Something it depends on is down', schema: readinessSchema },
        },
      },
      async () => {
        const results = await Promise.all(deps.readiness.map(async (dependency) => [dependency.name, await checkWithin(dependency.check)] as const));
        const ready = results.every(([, up]) => up);
        return {
          status: ready ? 200 : 503,
          body: {
            status: ready ? 'ready' : 'not_ready',
            checks: Object.fromEntries(results.map(([name, up]) => [name, up ? 'up' : 'down'])),
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/openapi.json',
        operationId: 'openApiDocument',
        summary: 'This API’s OpenAPI 3.1 document',
        tags,
        auth: none,
        responses: { 200: { description: 'The document', schema: openApiDocumentSchema } },
      },
      async () => ({ status: 200, body: deps.openApiDocument() }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/docs',
        operationId: 'apiReference',
        summary: 'The API reference, readable in a browser',
        tags,
        auth: none,
        responses: { 200: { description: 'An HTML page' } },
      },
      // Swagger UI is a page: it runs under the web apps' policy (its scripts and styles are the gateway's own files,
      // /docs/assets and /docs/init.js; its icons `data:` images; "Try it out" calls the same origin).
      async () => ({
        status: 200,
        raw: { contentType: 'text/html; charset=utf-8', content: docsPageHtml },
        headers: { 'Content-Security-Policy': WEB_APP_CSP },
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/docs/init.js',
        operationId: 'apiReferenceScript',
        summary: 'Script of the API reference page',
        tags,
        auth: none,
        responses: { 200: { description: 'JavaScript' } },
      },
      async () => ({ status: 200, raw: { contentType: 'text/javascript; charset=utf-8', content: docsInitScript } }),
    ),
  ];
}
