import { randomBytes } from 'node:crypto';
import { randomEvmAddress } from './evm-addresses';
import type { Api } from './http';
import { lateBound } from './late-bound';
import { type StackOptions, startStack, TEST_PLATFORM_KEY, type TestStack } from './stack';
import { borrowWorkerStack } from './worker-stack';

export { evmAddress, mixedCase, randomEvmAddress } from './evm-addresses';

/** Anything with the gateway's API: a whole test stack, or a fault stack's gateway. */
type WithApi = { api: Api };

export interface TestProject {
  id: string;
  name: string;
  /** tracking: the send:tracking_event key (POST /api/v1/events only). */
  keys: { admin: string; service: string; readOnly: string; tracking: string };
  keyIds: { admin: string; service: string; readOnly: string; tracking: string };
}

export async function createProject(stack: WithApi, name = 'Test program'): Promise<TestProject> {
  const response = await stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name } });
  if (response.status !== 201) throw new Error(`project creation failed: ${response.status} ${response.text}`);
  const byRole = (role: string) => response.body.api_keys.find((key: { role: string }) => key.role === role);
  return {
    id: response.body.id,
    name: response.body.name,
    keys: {
      admin: byRole('admin').key,
      service: byRole('service_role').key,
      readOnly: byRole('read_only').key,
      tracking: byRole('send:tracking_event').key,
    },
    keyIds: {
      admin: byRole('admin').id,
      service: byRole('service_role').id,
      readOnly: byRole('read_only').id,
      tracking: byRole('send:tracking_event').id,
    },
  };
}

/**
 * The usual start of an HTTP test file: a stack and a project in it. Without options, the worker's stack
 * (borrowWorkerStack: started once per Jest worker, a project per file); with options, a stack of the file's own.
 */
export async function startStackWithProject(options?: StackOptions): Promise<{ stack: TestStack; project: TestProject }> {
  const borrowed = options === undefined ? await borrowWorkerStack() : undefined;
  const stack = borrowed ?? (await startStack(options));
  try {
    return { stack, project: await createProject(stack) };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/**
 * The usual set-up of an HTTP test file, as hooks: starts a stack with a project before the file's
 * tests and stops it after them. Call it inside the file's describe, before the file's own hooks
 * (which then see a started stack; jest runs afterAll hooks in the order they are declared, so the
 * stack stops before the file's own afterAll hooks run). Returns stand-ins that answer with the
 * started stack and project once the file's beforeAll hooks run.
 */
export function useStackWithProject(options?: StackOptions): { stack: TestStack; project: TestProject } {
  let started: { stack: TestStack; project: TestProject } | undefined;
  beforeAll(async () => {
    started = await startStackWithProject(options);
  });
  afterAll(async () => {
    await started?.stack.stop();
  });
  const get = <K extends 'stack' | 'project'>(member: K) => {
    if (!started) throw new Error(`the ${member} is not started yet (it was asked for outside the tests and hooks)`);
    return started[member];
  };
  return { stack: lateBound(() => get('stack')), project: lateBound(() => get('project')) };
}

export async function createSegment(stack: WithApi, project: TestProject, body: Record<string, unknown> = {}) {
  const response = await stack.api.post(`/api/v1/projects/${project.id}/audiences`, {
    key: project.keys.admin,
    body: { name: `Segment ${randomBytes(3).toString('hex')}`, ...body },
  });
  if (response.status !== 201) throw new Error(`segment creation failed: ${response.status} ${response.text}`);
  return response.body as { id: string; name: string; entries_count: number; tier_rank: number | null };
}

/** An affiliate of the project, created by the admin API with this body; answers the created affiliate. */
export async function createAffiliate(stack: WithApi, project: TestProject, body: Record<string, unknown>) {
  const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, { key: project.keys.admin, body });
  if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
  return response.body as { id: string };
}

/** An affiliate named `name` at a new address, with a code made of its name. */
export async function newNamedAffiliate(stack: WithApi, project: TestProject, name: string) {
  const identifier = randomEvmAddress();
  const code = `${name.toLowerCase()}${randomEvmAddress().slice(2, 8)}`;
  const { id } = await createAffiliate(stack, project, { identifier, identifier_type: 'evm_address', name, code });
  return { id, identifier, code };
}
