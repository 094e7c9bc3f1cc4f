/** The few gateway calls the benchmark makes to set itself up, over plain fetch. */
export class Api {
  constructor(readonly baseUrl: string) {}

  async call<T = any>(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    expect: number[] = [200, 201, 202, 204],
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
    if (!expect.includes(response.status)) {
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    return { status: response.status, body: parsed };
  }
}

export interface Project {
  id: string;
  keys: { admin: string; service: string };
}

export async function createProject(api: Api, platformKey: string, name: string): Promise<Project> {
  const { body } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>('POST', '/api/v1/projects', platformKey, {
    name,
  });
  const key = (role: string) => {
    const found = body.api_keys.find((candidate) => candidate.role === role);
    if (!found) throw new Error(`project creation returned no ${role} key`);
    return found.key;
  };
  return { id: body.id, keys: { admin: key('admin'), service: key('service_role') } };
}

export async function createSegment(api: Api, project: Project, name: string): Promise<{ id: string }> {
  const { body } = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, { name });
  return body;
}

export async function getSegment(api: Api, project: Project, segmentId: string): Promise<{ id: string; entries_count: number | string }> {
  const { body } = await api.call('GET', `/api/v1/projects/${project.id}/audiences/${segmentId}`, project.keys.admin);
  return body;
}
