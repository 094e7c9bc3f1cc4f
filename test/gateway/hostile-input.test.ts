import { Agent, request as httpRequest } from 'node:http';
import { createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { TEST_PLATFORM_KEY, type TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

/**
 * No request can produce a 500 by its shape alone, and every error has the standard body. For
 * every operation of the OpenAPI document, requests are generated from classes of hostile input:
 * odd path and query values, malformed percent-encodings, control characters and lone surrogates
 * (in values and in keys), NUL in object keys, deep nesting, numbers beyond a double, and
 * oversize headers and query strings.
 */

/** Path and query values, sent percent-encoded. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '-1',
  '0',
  '1e309',
  'NaN',
  '99999999999999999999999',
  'true',
  'null',
  '%00',
  'a\u0000b',
  '💥',
  '\u202e',
  '../..',
  'x'.repeat(3000),
  '\u0001\u001f\u007f',
  'A'.repeat(36),
];
/** Path and query values sent as they are: malformed or non-UTF-8 percent-encodings, a raw control escape. */
const RAW_ENCODINGS = ['%ff', '%', '%zz', '%E0%A4%A', '%ed%a0%80', '%c0%af', '%01%7f', 'a%2Fb'];
/** Values of the wrong type or size for any body field: each is sent in every field. */
const MISTYPED_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1.5,
  1e308,
  12345678901234567000,
  '',
  'x'.repeat(20_000),
  '💥\u202e',
  [],
  [1, 'a', null],
  {},
  { nested: { deeper: [{}] } },
];
/**
 * Values that no field may hold, whatever its type (the gateway refuses them for every field of every
 * body before validation): each is sent once per operation, the fields taking turns. The raw ones are
 * JSON texts a client cannot get from JSON.stringify: numbers beyond a double, nesting 7,000 levels deep.
 */
const UNSAFE_VALUES: string[] = [
  ...['a\u0000b', '\u0001\u001b[31m\u007f', '\ud800', 'x\udc00y', { 'k\u0000': 1 }, { '\ud800': 'v' }, { '\u0001': '\u0002' }].map((value) =>
    JSON.stringify(value),
  ),
  '1e400',
  '1e309',
  '-1e400',
  '9'.repeat(400),
  `0.${'0'.repeat(400)}1`,
  `${'['.repeat(7_000)}${']'.repeat(7_000)}`,
  `${'{"a":'.repeat(7_000)}1${'}'.repeat(7_000)}`,
];
/** Whole bodies: JSON of the wrong shape, hostile keys at the top, deep nesting and huge numbers at the root. */
const HOSTILE_BODIES: string[] = [
  ...[null, [], 'text', 42, {}, { unknown_field: 1 }, { '\u0000': 1 }, { '\udfff': 1 }].map((body) => JSON.stringify(body)),
  `${'['.repeat(7_000)}${']'.repeat(7_000)}`,
  '1e400',
  '{"a":1e309}',
];
const OVERSIZE = 'o'.repeat(20_000);

/**
 * Requests in flight at once, over as many kept-alive connections: most of a request's time is the
 * services' and the database's, so more in flight keep both cores busy. The requests go through
 * node:http, as bytes on a connection, which costs a fraction of fetch's CPU per request.
 */
const CONCURRENCY = 16;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
/** A stack, a sign-in and the document: the file runs first (the longest), with cold caches, which on a loaded machine takes over a minute. */
const SETUP_TIMEOUT_MS = 120_000;

interface Operation {
  method: string;
  path: string;
  scheme: string;
  /** API key roles allowed, from the operation's x-access. */
  roles: string[];
  parameters: Array<{ name: string; in: string }>;
  /** Whether it takes a JSON body at all. */
  hasBody: boolean;
  bodyProperties: string[];
}

interface Probe {
  operation: Operation;
  /** Replaces every path parameter; `raw` values go into the path as they are. */
  pathValue?: { value: string; raw?: boolean };
  query?: string;
  /** A body as JSON text. */
  body?: string;
  headers?: Record<string, string>;
  /** Sent with the operation's credential and without any. */
  withoutKeyToo?: boolean;
  /** Sent without any credential only. */
  withoutKey?: boolean;
}

describe('hostile input', () => {
  let stack: TestStack;
  let project: TestProject;
  let realPathValues: Record<string, string>;
  /** Deletes act on resources of their own, so that the other probes keep reaching deep. */
  let deletablePathValues: Record<string, string>;
  let keyByRole: Record<string, string>;
  let keyByScheme: Record<string, string | undefined>;
  let operations: Operation[];

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    const segment = await createSegment(stack, project);
    const sacrificial = await createSegment(stack, project);
    const job = await stack.api.post(`/v1/audience-segments/${segment.id}/entries/batch?wait=true`, {
      key: project.keys.service,
      body: { entries: [{ identifier: evmAddress(1), identifier_type: 'evm_address' }] },
    });
    const spareKey = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
      key: project.keys.admin,
      body: { role: 'read_only', name: 'spare' },
    });
    const wallet = await newWallet();
    realPathValues = {
      projectId: project.id,
      segmentId: segment.id,
      audienceId: segment.id,
      jobId: job.body.job_id,
      userIdentifier: wallet.address,
      keyId: spareKey.body.id,
    };
    deletablePathValues = { ...realPathValues, segmentId: sacrificial.id, audienceId: sacrificial.id };
    const session = await signIn(stack, wallet);
    keyByRole = {
      admin: project.keys.admin,
      service_role: project.keys.service,
      read_only: project.keys.readOnly,
      'send:tracking_event': project.keys.tracking,
    };
    keyByScheme = { platformKey: TEST_PLATFORM_KEY, walletSession: session, none: undefined };
    const document = (await stack.api.get('/openapi.json')).body;
    operations = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        const variants = [schema, ...(schema?.oneOf ?? []), ...(schema?.anyOf ?? [])].filter(Boolean);
        operations.push({
          method: method.toUpperCase(),
          path,
          scheme: Object.keys(operation.security?.[0] ?? { none: [] })[0]!,
          roles: operation['x-access']?.roles ?? [],
          parameters: operation.parameters ?? [],
          hasBody: schema !== undefined,
          bodyProperties: [...new Set(variants.flatMap((variant: any) => Object.keys(variant.properties ?? {})))],
        });
      }
    }
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    agent.destroy();
    await stack.stop();
  });

  /** The credential that gets a probe past authentication, so that it reaches validation and the services. */
  function authorized(operation: Operation): string | undefined {
    if (operation.scheme === 'apiKey') return keyByRole[operation.roles[0] ?? 'admin'];
    return keyByScheme[operation.scheme];
  }

  function probesFor(operation: Operation): Probe[] {
    const probes: Probe[] = [];
    if (operation.parameters.some((p) => p.in === 'path')) {
      for (const value of HOSTILE_STRINGS) probes.push({ operation, pathValue: { value } });
      for (const value of RAW_ENCODINGS) probes.push({ operation, pathValue: { value, raw: true }, withoutKeyToo: true });
    }
    const query = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    for (const name of query) {
      for (const value of HOSTILE_STRINGS) probes.push({ operation, query: `${name}=${encodeURIComponent(value)}` });
      probes.push({ operation, query: `${name}=1&${name}=2` });
      probes.push({ operation, query: `${name}[a][b]=1` });
    }
    if (query.length > 0) {
      RAW_ENCODINGS.forEach((value, i) => probes.push({ operation, query: `${query[i % query.length]}=${value}` }));
      // Keys as hostile as the values: control characters, a malformed encoding, a NUL.
      probes.push({ operation, query: `%01%1b%7f=1&%ff=1&%00=1&${query[0]}=1` });
    }
    if (operation.method === 'POST' || operation.method === 'PATCH') {
      for (const body of HOSTILE_BODIES) probes.push({ operation, body });
      const fields = operation.bodyProperties;
      for (const field of fields) {
        for (const value of MISTYPED_VALUES) probes.push({ operation, body: JSON.stringify({ [field]: value }) });
      }
      UNSAFE_VALUES.forEach((value, i) =>
        probes.push({ operation, body: `{${JSON.stringify(fields[i % Math.max(fields.length, 1)] ?? 'field')}:${value}}` }),
      );
    }
    // Refused by Node's parser before any route: one of each per operation is enough.
    probes.push({ operation, query: `pad=${OVERSIZE}`, withoutKey: true });
    probes.push({ operation, headers: { 'x-padding': OVERSIZE }, withoutKey: true });
    return probes;
  }

  function pathOf(probe: Probe): string {
    const values = probe.operation.method === 'DELETE' ? deletablePathValues : realPathValues;
    const path = probe.operation.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      if (probe.pathValue) return probe.pathValue.raw ? probe.pathValue.value : encodeURIComponent(probe.pathValue.value);
      return encodeURIComponent(values[name] ?? 'unknown');
    });
    return probe.query ? `${path}?${probe.query}` : path;
  }

  /** What is wrong with one answer, if anything: a 5xx, or an error without the standard body. */
  async function send(probe: Probe, key: string | undefined): Promise<string | undefined> {
    const target = pathOf(probe);
    const label = `${probe.operation.method} ${target.slice(0, 120)} ${probe.body?.slice(0, 60) ?? ''} ${key ? 'with a key' : 'without a key'}`;
    const headers: Record<string, string> = { ...probe.headers };
    if (probe.body !== undefined) headers['content-type'] = 'application/json';
    if (key) headers.authorization = `Bearer ${key}`;
    let response;
    try {
      response = await rawRequest(`${stack.baseUrl}${target}`, probe.operation.method, headers, probe.body);
    } catch (error) {
      return `${label} -> no answer (${String(error)})`;
    }
    if (response.status >= 500) return `${label} -> ${response.status} ${response.text.slice(0, 200)}`;
    if (response.status >= 400) {
      let body: Record<string, unknown> | string = response.text;
      try {
        if (response.contentType?.includes('application/json')) body = JSON.parse(response.text);
      } catch {
        // Not JSON though it says so: not the standard body either.
      }
      const standard =
        typeof body === 'object' &&
        body !== null &&
        body.status === response.status &&
        typeof body.code === 'string' &&
        typeof body.message === 'string' &&
        Array.isArray(body.details) &&
        body.details.every((detail: any) => typeof detail?.field === 'string' && typeof detail?.reason === 'string') &&
        Object.keys(body).length === 4;
      if (!standard) return `${label} -> ${response.status} without the standard error body: ${response.text.slice(0, 200)}`;
    }
    return undefined;
  }

  /** A request of a class that every operation must refuse, and the answer it must get. */
  interface Refusal {
    operation: Operation;
    label: string;
    pathValue?: string;
    query?: string;
    body?: { text: string; contentType: string };
    /** undefined: sent without any credential; otherwise with the operation's own. */
    key: string | undefined;
    code: string;
    /** The field the first detail must name, when the class names one. */
    field?: string;
  }

  /**
   * The classes of input that the route layer refuses for every operation, whatever the route
   * declares: each is sent to every operation it applies to, and each must be a 400 with its code.
   * The text of the path and query is checked before authentication (so without a credential too);
   * the rest after it (so with the operation's credential, to reach the check).
   */
  function refusalsFor(operation: Operation): Refusal[] {
    const refusals: Refusal[] = [];
    const key = authorized(operation);
    const pathNames = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    for (const credential of [undefined, key]) {
      if (pathNames.length > 0) {
        refusals.push({
          operation,
          label: 'NUL in every path id',
          pathValue: encodeURIComponent('a\u0000b'),
          key: credential,
          code: 'VALIDATION_FAILED',
          field: pathNames[0],
        });
      }
      // Names the route does not know, as well as values of ones it does.
      const cases: Array<[string, string, string]> = [
        ['a%00b=1', 'VALIDATION_FAILED', 'a%00b'],
        ['%00=1', 'VALIDATION_FAILED', '%00'],
        ['%ff=1', 'INVALID_QUERY_ENCODING', '%ff'],
        ['a%zz=1', 'INVALID_QUERY_ENCODING', 'a%zz'],
        ['x%E0%A4%A', 'INVALID_QUERY_ENCODING', 'x%E0%A4%A'],
        ['x=%ed%a0%80', 'INVALID_QUERY_ENCODING', 'x'],
        ['x=%c0%af', 'INVALID_QUERY_ENCODING', 'x'],
        ['x=a%00b', 'VALIDATION_FAILED', 'x'],
      ];
      for (const [query, code, field] of cases) refusals.push({ operation, label: `query ${query}`, query, key: credential, code, field });
    }
    if (!operation.hasBody) {
      for (const body of [
        { text: '{"a":', contentType: 'application/json' },
        { text: '{}', contentType: 'application/json' },
        { text: 'null', contentType: 'application/json' },
        { text: 'x', contentType: 'text/plain' },
      ]) {
        refusals.push({ operation, label: `a body where none is taken: ${body.text}`, body, key, code: 'BODY_NOT_ALLOWED' });
      }
    }
    for (const parameter of operation.parameters.filter((p) => p.in === 'query' && /identifier_type$/.test(p.name))) {
      refusals.push({
        operation,
        label: `an unknown ${parameter.name}`,
        query: `${parameter.name}=bogus_type`,
        // A body route reads its body before the query is validated: an empty object gets it there.
        ...(operation.hasBody ? { body: { text: '{}', contentType: 'application/json' } } : {}),
        key,
        code: 'VALIDATION_FAILED',
        field: parameter.name,
      });
    }
    return refusals;
  }

  async function sendRefusal(refusal: Refusal): Promise<string | undefined> {
    const probe: Probe = {
      operation: refusal.operation,
      ...(refusal.pathValue ? { pathValue: { value: refusal.pathValue, raw: true } } : {}),
      query: refusal.query,
    };
    const target = pathOf(probe);
    const label = `${refusal.operation.method} ${refusal.operation.path} (${refusal.label}, ${refusal.key ? 'with its credential' : 'without a credential'})`;
    const headers: Record<string, string> = refusal.body ? { 'content-type': refusal.body.contentType } : {};
    if (refusal.key) headers.authorization = `Bearer ${refusal.key}`;
    // fetch sends no body with a GET: node:http does.
    const response = await rawRequest(`${stack.baseUrl}${target}`, refusal.operation.method, headers, refusal.body?.text);
    let body: { code?: string; details?: Array<{ field: string }> } | undefined;
    try {
      body = JSON.parse(response.text);
    } catch {
      body = undefined;
    }
    if (response.status !== 400 || body?.code !== refusal.code)
      return `${label} -> ${response.status} ${response.text.slice(0, 200)}, not 400 ${refusal.code}`;
    if (refusal.field !== undefined && !body.details?.some((detail) => detail.field === refusal.field)) {
      return `${label} -> details ${JSON.stringify(body.details)} do not name ${refusal.field}`;
    }
    return undefined;
  }

  it('refuses each class of bad input with 400 on every operation, before anything runs', async () => {
    const projectsBefore = (await stack.db.query('SELECT count(*)::int AS n FROM access.projects')).rows[0].n;
    const refusals = operations.flatMap(refusalsFor);
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < refusals.length) {
          const failure = await sendRefusal(refusals[next++]!);
          if (failure) failures.push(failure);
        }
      }),
    );
    expect(failures).toEqual([]);
    // A valid body beside a bad query parameter changes nothing either.
    for (const query of ['a%00b=1', '%ff=1']) {
      const created = await stack.api.post(`/api/v1/projects?${query}`, { key: TEST_PLATFORM_KEY, body: { name: 'hostile' } });
      expect(created.status).toBe(400);
    }
    expect((await stack.db.query('SELECT count(*)::int AS n FROM access.projects')).rows[0].n).toBe(projectsBefore);
    // Every class reached the operations it applies to.
    const labels = new Set(refusals.map((refusal) => refusal.label.replace(/:.*$/, '').replace(/ (user_)?identifier_type$/, '')));
    expect([...labels]).toEqual(
      expect.arrayContaining(['NUL in every path id', 'query a%00b=1', 'query %ff=1', 'a body where none is taken', 'an unknown']),
    );
    expect(refusals.filter((refusal) => refusal.code === 'BODY_NOT_ALLOWED').length).toBeGreaterThan(40);
    expect(refusals.filter((refusal) => refusal.label.startsWith('an unknown')).length).toBeGreaterThan(25);
  }, 240_000);

  it('answers every generated hostile request below 500, every error in the standard body', async () => {
    const sends: Array<() => Promise<string | undefined>> = [];
    for (const operation of operations) {
      if (operation.path.startsWith('/docs')) continue;
      for (const probe of probesFor(operation)) {
        const keys = probe.withoutKey ? [undefined] : probe.withoutKeyToo ? [undefined, authorized(operation)] : [authorized(operation)];
        for (const key of keys) sends.push(() => send(probe, key));
      }
    }
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < sends.length) {
          const failure = await sends[next++]!();
          if (failure) failures.push(failure);
        }
      }),
    );
    expect(failures).toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
    expect(sends.length).toBeGreaterThan(2_000);
    // Thousands of requests, and more with every route added: alone it takes ~20 s; beside the other suites on two cores, three times that.
  }, 240_000);
});

/** One request with node:http on the file's kept-alive connections; unlike fetch it sends a body with any method. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, contentType: response.headers['content-type'] }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
