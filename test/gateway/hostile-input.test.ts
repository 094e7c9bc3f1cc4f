import { createProject, createSegment, evmAddress, type TestProject } from '../helpers/fixtures';
import { startStack, TEST_PLATFORM_KEY, type TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

/**
 * No request can produce a 500 by its shape alone: every operation of the OpenAPI document is sent
 * hostile path values, query values and bodies, with each kind of credential, and must answer < 500.
 */
const HOSTILE_STRINGS = ['', ' ', '-1', '0', '1e309', 'NaN', '99999999999999999999999', 'true', 'null', '%00', 'a\u0000b', '💥', '\u202e', '../..', 'x'.repeat(3000)];
const HOSTILE_VALUES: unknown[] = [null, true, -1, 0, 1.5, 1e308, 12345678901234567890, '', 'x'.repeat(20_000), '💥\u202e', 'a\u0000b', [], [1, 'a', null], {}, { nested: { deeper: [{}] } }];
const HOSTILE_BODIES: unknown[] = [null, [], 'text', 42, {}, { unknown_field: 1 }];

interface Operation {
  method: string;
  path: string;
  security: Array<Record<string, unknown>>;
  parameters: Array<{ name: string; in: string }>;
  bodyProperties: string[];
}

describe('hostile input', () => {
  let stack: TestStack;
  let project: TestProject;
  let realPathValues: Record<string, string>;
  let credentials: Record<string, string[]>;
  let operations: Operation[];

  beforeAll(async () => {
    stack = await startStack();
    project = await createProject(stack);
    const segment = await createSegment(stack, project);
    const job = await stack.api.post(`/v1/audience-segments/${segment.id}/entries/batch?wait=true`, {
      key: project.keys.service,
      body: { entries: [{ identifier: evmAddress(1), identifier_type: 'evm_address' }] },
    });
    const wallet = await newWallet();
    realPathValues = {
      projectId: project.id,
      segmentId: segment.id,
      audienceId: segment.id,
      jobId: job.body.job_id,
      userIdentifier: wallet.address,
      keyId: project.keyIds.readOnly,
    };
    credentials = {
      apiKey: [project.keys.admin, project.keys.service, project.keys.readOnly],
      platformKey: [TEST_PLATFORM_KEY],
      session: [await signIn(stack, wallet)],
      none: [''],
    };
    const document = (await stack.api.get('/openapi.json')).body;
    operations = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        operations.push({
          method: method.toUpperCase(),
          path,
          security: operation.security ?? [],
          parameters: operation.parameters ?? [],
          bodyProperties: Object.keys(schema?.properties ?? {}),
        });
      }
    }
  });
  afterAll(() => stack.stop());

  async function send(operation: Operation, options: { pathValue?: string; query?: string; body?: unknown }) {
    const path = operation.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
      encodeURIComponent(options.pathValue ?? realPathValues[name] ?? 'unknown'),
    );
    const scheme = Object.keys(operation.security[0] ?? { none: [] })[0]!;
    const failures: string[] = [];
    for (const key of credentials[scheme] ?? ['']) {
      const response = await stack.api.request(operation.method, `${path}${options.query ? `?${options.query}` : ''}`, {
        key: key || undefined,
        ...(options.body !== undefined ? { rawBody: JSON.stringify(options.body), headers: { 'content-type': 'application/json' } } : {}),
      });
      if (response.status >= 500) failures.push(`${operation.method} ${path} ${options.query ?? ''} ${JSON.stringify(options.body)?.slice(0, 80)} -> ${response.status} ${response.text.slice(0, 200)}`);
    }
    return failures;
  }

  it('answers every hostile path value, query value and body with a status below 500', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      if (operation.path === '/metrics' || operation.path.startsWith('/docs')) continue;
      if (operation.parameters.some((p) => p.in === 'path')) {
        for (const value of HOSTILE_STRINGS) failures.push(...(await send(operation, { pathValue: value })));
      }
      for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
        for (const value of HOSTILE_STRINGS) {
          failures.push(...(await send(operation, { query: `${parameter.name}=${encodeURIComponent(value)}` })));
        }
        failures.push(...(await send(operation, { query: `${parameter.name}=1&${parameter.name}=2` })));
      }
      if (operation.method === 'POST' || operation.method === 'PATCH') {
        for (const body of HOSTILE_BODIES) failures.push(...(await send(operation, { body })));
        for (const property of operation.bodyProperties) {
          for (const value of HOSTILE_VALUES) failures.push(...(await send(operation, { body: { [property]: value } })));
        }
      }
    }
    expect(failures).toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
  });
});
