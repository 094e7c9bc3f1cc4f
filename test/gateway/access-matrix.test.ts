import type { ApiKeyRole } from '../../gateway/access/access.database';
import type { Access } from '../../gateway/openapi/document';
import { createProject, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { ApiResponse } from '../helpers/http';
import { type DocumentedOperation, documentedOperations, runLimited } from '../helpers/openapi';
import { TEST_PLATFORM_KEY, type TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

/**
 * The access matrix: every operation of /openapi.json, called with every kind of caller, answers
 * what the operation's `x-access` documents (gateway/openapi/document.ts). The expectations come
 * from the document alone, so a route added later is walked as soon as it is declared.
 *
 * A refusal is exact (status, code, the standard error body). An admitted call only has to get
 * past authentication: the matrix sends empty bodies and placeholder ids, so 400 or 404 is fine,
 * but never 401, 403, 404 PROJECT_NOT_FOUND or a 5xx.
 */

type Credential = Access['credential'];

interface Caller {
  name: string;
  credential: Credential;
  role?: ApiKeyRole;
  /** A key of another project than the one the paths name. */
  foreign?: boolean;
}

const CALLERS: Caller[] = [
  { name: 'no credential', credential: 'none' },
  { name: 'the platform key', credential: 'platformKey' },
  { name: 'an admin key', credential: 'apiKey', role: 'admin' },
  { name: 'a service_role key', credential: 'apiKey', role: 'service_role' },
  { name: 'a read_only key', credential: 'apiKey', role: 'read_only' },
  { name: 'a send:tracking_event key', credential: 'apiKey', role: 'send:tracking_event' },
  { name: 'a wallet session token', credential: 'walletSession' },
  { name: 'an admin key of another project', credential: 'apiKey', role: 'admin', foreign: true },
  { name: 'a service_role key of another project', credential: 'apiKey', role: 'service_role', foreign: true },
  { name: 'a read_only key of another project', credential: 'apiKey', role: 'read_only', foreign: true },
];

type Expected = { admitted: true } | { admitted: false; status: 401 | 403 | 404; code: string };

const ADMITTED: Expected = { admitted: true };
const refused = (status: 401 | 403 | 404, code: string): Expected => ({ admitted: false, status, code });

/** What the document promises a caller, read from an operation's `x-access` (its meaning: the document's info.description). */
function expectedAnswer(access: Access, caller: Caller): Expected {
  if (access.credential === 'none') return ADMITTED;
  if (caller.credential === 'none') return refused(401, 'UNAUTHENTICATED');
  if (!credentialsOf(access).includes(caller.credential)) return refused(401, 'WRONG_CREDENTIAL_KIND');
  if (access.credential === 'apiKeyOrWalletSession' && caller.credential === 'apiKey' && !access.roles.includes(caller.role!))
    return refused(403, 'FORBIDDEN');
  if (access.credential === 'apiKey') {
    // A foreign id answers 404, not 403: another project's key learns nothing of this one, its role included.
    if (access.project === 'path' && caller.foreign) return refused(404, 'PROJECT_NOT_FOUND');
    if (!access.roles.includes(caller.role!)) return refused(403, 'FORBIDDEN');
  }
  return ADMITTED;
}

/** The credentials an operation takes: one, or (apiKeyOrWalletSession) either of two. */
function credentialsOf(access: Access): Credential[] {
  return access.credential === 'apiKeyOrWalletSession' ? ['apiKey', 'walletSession'] : [access.credential];
}

/** The OpenAPI security an operation's x-access implies: one requirement per credential it takes. */
function securityOf(access: Access): Array<Record<string, string[]>> {
  if (access.credential === 'none') return [];
  return credentialsOf(access).map((credential) => ({ [credential]: credential === 'apiKey' && 'roles' in access ? access.roles : [] }));
}

const CONCURRENCY = 8;
const KNOWN_CREDENTIALS: Credential[] = ['none', 'platformKey', 'apiKey', 'walletSession', 'apiKeyOrWalletSession'];

describe('the access matrix: every operation of /openapi.json with every kind of caller', () => {
  let stack: TestStack;
  let project: TestProject;
  let document: any;
  let operations: DocumentedOperation[];
  let tokens: Map<Caller, string | undefined>;

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    const other = await createProject(stack, 'Another program');
    const session = await signIn(stack, await newWallet());
    const keyOf = (keys: TestProject['keys'], role: ApiKeyRole | undefined) =>
      role === 'admin' ? keys.admin : role === 'service_role' ? keys.service : role === 'send:tracking_event' ? keys.tracking : keys.readOnly;
    tokens = new Map(
      CALLERS.map((caller) => {
        if (caller.credential === 'none') return [caller, undefined];
        if (caller.credential === 'platformKey') return [caller, TEST_PLATFORM_KEY];
        if (caller.credential === 'walletSession') return [caller, session];
        return [caller, keyOf(caller.foreign ? other.keys : project.keys, caller.role)];
      }),
    );
    document = (await stack.api.get('/openapi.json')).body;
    operations = documentedOperations(document);
  });
  afterAll(() => stack.stop());

  it('has every operation state who may call it, consistently with its security and its path', () => {
    const roles: string[] = document.components.securitySchemes.apiKey['x-roles'];
    const problems: string[] = [];
    for (const { key, path, operation, access, pathParameters } of operations) {
      if (!access || !KNOWN_CREDENTIALS.includes(access.credential)) {
        problems.push(`${key}: no x-access, or an unknown credential`);
        continue;
      }
      const underProject = path.includes('{projectId}');
      if (JSON.stringify(operation.security) !== JSON.stringify(securityOf(access))) problems.push(`${key}: security does not match x-access`);
      if (access.credential === 'apiKey' || access.credential === 'apiKeyOrWalletSession') {
        if (access.roles.length === 0 || access.roles.some((role) => !roles.includes(role)) || new Set(access.roles).size !== access.roles.length) {
          problems.push(`${key}: roles ${access.roles.join(',')} are not a set of known roles`);
        }
        if (!operation.description?.endsWith(`API key roles: ${access.roles.join(', ')}.`))
          problems.push(`${key}: the description names other roles`);
      }
      const scope = 'project' in access ? access.project : undefined;
      if ((scope === 'path') !== underProject) problems.push(`${key}: project ${scope} on a path ${underProject ? 'under' : 'outside'} {projectId}`);
      if (access.credential === 'apiKey' && scope !== 'path' && scope !== 'key')
        problems.push(`${key}: an API key route says nothing of its project`);
      if (access.credential === 'apiKeyOrWalletSession' && (scope !== 'key' || access.walletSessionProject !== 'query')) {
        problems.push(`${key}: a route taking either credential names its project by the key, or by project_id for a session`);
      }
      for (const { name, example } of pathParameters) {
        if (name !== 'projectId' && example === undefined)
          problems.push(`${key}: path parameter {${name}} documents no example (gateway/http/params.ts)`);
      }
    }
    expect(problems).toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
    // The walk below meets every kind of rule, so none of its branches is vacuous.
    const kinds = new Set(operations.map(({ access }) => `${access?.credential}${access && 'project' in access ? `:${access.project}` : ''}`));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['apiKey:key', 'apiKey:path', 'none', 'platformKey', 'walletSession:path', 'apiKeyOrWalletSession:key']),
    );
    const answers = new Set(operations.flatMap(({ access }) => CALLERS.map((caller) => JSON.stringify(expectedAnswer(access!, caller)))));
    expect(answers).toEqual(
      new Set(
        [
          ADMITTED,
          refused(401, 'UNAUTHENTICATED'),
          refused(401, 'WRONG_CREDENTIAL_KIND'),
          refused(403, 'FORBIDDEN'),
          refused(404, 'PROJECT_NOT_FOUND'),
        ].map((answer) => JSON.stringify(answer)),
      ),
    );
  });

  it('documents as security schemes exactly the bearer credentials the gateway takes, and the key roles it issues', async () => {
    const schemes = document.components.securitySchemes;
    const used = new Set(operations.flatMap(({ access }) => credentialsOf(access!)).filter((credential) => credential !== 'none'));
    expect(Object.keys(schemes).sort()).toEqual([...used].sort());
    for (const scheme of Object.values<Record<string, unknown>>(schemes)) expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });

    const issued = await stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.admin });
    expect(issued.status).toBe(200);
    expect(schemes.apiKey['x-roles'].sort()).toEqual(issued.body.results.map((key: { role: string }) => key.role).sort());

    // Bearer is the only way in: the same admin key as a bare header, or in another header, is no credential.
    const path = `/api/v1/projects/${project.id}/audiences`;
    const elsewhere: Array<Record<string, string>> = [
      { authorization: project.keys.admin },
      { 'x-api-key': project.keys.admin },
      { authorization: `Basic ${project.keys.admin}` },
    ];
    for (const headers of elsewhere) {
      const response = await stack.api.get(path, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  /** What is wrong with one cell's answer, if anything. */
  function judge(operation: DocumentedOperation, caller: Caller, response: ApiResponse): string | undefined {
    const expected = expectedAnswer(operation.access!, caller);
    const got = `${response.status} ${typeof response.body === 'object' ? response.body?.code : ''}`.trim();
    const wrong = (why: string) => `${operation.key} with ${caller.name}: ${why}, got ${got}`;
    if (!operation.statuses.includes(response.status)) return wrong(`answered a status its document does not list`);
    const standardBody =
      response.status < 400 ||
      (typeof response.body === 'object' &&
        response.body !== null &&
        Object.keys(response.body).sort().join() === 'code,details,message,status' &&
        response.body.status === response.status &&
        typeof response.body.code === 'string' &&
        typeof response.body.message === 'string' &&
        Array.isArray(response.body.details));
    if (!standardBody) return wrong('an error without the standard body');
    if (expected.admitted) {
      if (response.status === 401 || response.status === 403 || response.status >= 500) return wrong('expected to be let through');
      if (response.status === 404 && response.body.code === 'PROJECT_NOT_FOUND') return wrong('expected to be let through');
      return undefined;
    }
    if (response.status !== expected.status || response.body.code !== expected.code) return wrong(`expected ${expected.status} ${expected.code}`);
    if (response.body.details.length !== 0) return wrong('a refusal with details');
    if (expected.status === 401 && response.headers.get('www-authenticate') !== 'Bearer') return wrong('a 401 without WWW-Authenticate: Bearer');
    return undefined;
  }

  /** Path parameters: the project's id for {projectId} (a foreign key's cell too), the documented example for the others. */
  function pathOf(operation: DocumentedOperation): string {
    const values = new Map(
      operation.pathParameters.map(({ name, example }) => [name, name === 'projectId' ? project.id : (example ?? 'no-example')]),
    );
    return operation.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => encodeURIComponent(values.get(name)!));
  }

  it.each(CALLERS.map((caller) => [caller.name, caller] as const))('%s: every operation answers as its x-access documents', async (_name, caller) => {
    const token = tokens.get(caller);
    const failures = await runLimited(
      operations.map((operation) => async () => {
        const response = await stack.api.request(operation.method, pathOf(operation), { key: token, ...(operation.hasBody ? { body: {} } : {}) });
        return judge(operation, caller, response);
      }),
      CONCURRENCY,
    );
    expect(failures.filter(Boolean)).toEqual([]);
  });
});
