import { createProject, createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

/** What the dashboard's audience screens use with an admin key: the entry list with a search, and the CSV upload's batches. */
describe('audience entries for the dashboard', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const entriesPath = (segmentId: string, projectId = project.id) => `/api/v1/projects/${projectId}/audiences/${segmentId}/entries`;
  const evm = (identifier: string) => ({ identifier, identifier_type: 'evm_address' });

  it('adds a batch with an admin key, skipping users already there and repeats, and reports the job', async () => {
    const segment = await createSegment(stack, project);
    const first = await stack.api.post(`${entriesPath(segment.id)}/batch?wait=true`, {
      key: project.keys.admin,
      body: { entries: [evm(evmAddress(1)), evm(evmAddress(2))] },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'completed', received: 2, added: 2, skipped: 0 });

    const second = await stack.api.post(`${entriesPath(segment.id)}/batch`, {
      key: project.keys.admin,
      headers: { 'idempotency-key': 'csv-upload-1' },
      body: { entries: [evm(evmAddress(2).toUpperCase().replace('0X', '0x')), evm(evmAddress(3)), evm(evmAddress(3))] },
    });
    expect(second.status).toBe(202);
    const job = await stack.api.get(`${entriesPath(segment.id)}/batch/${second.body.job_id}?wait=true`, { key: project.keys.readOnly });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ job_id: second.body.job_id, status: 'completed', received: 3, added: 1, skipped: 2 });

    const retry = await stack.api.post(`${entriesPath(segment.id)}/batch?wait=true`, {
      key: project.keys.admin,
      headers: { 'idempotency-key': 'csv-upload-1' },
      body: { entries: [evm(evmAddress(2)), evm(evmAddress(3)), evm(evmAddress(3))] },
    });
    expect(retry.body).toMatchObject({ job_id: second.body.job_id, added: 1, skipped: 2 });
    const fetched = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
    expect(fetched.body.entries_count).toBe(3);
  });

  it('refuses a batch with an invalid entry, naming its index, and writes nothing', async () => {
    const segment = await createSegment(stack, project);
    const response = await stack.api.post(`${entriesPath(segment.id)}/batch?wait=true`, {
      key: project.keys.admin,
      body: { entries: [evm(evmAddress(1)), evm('0x123')] },
    });
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(['entries[1].identifier']);
    const count = await stack.db.query('SELECT count(*)::int AS n FROM audience.entries WHERE segment_id = $1', [segment.id]);
    expect(count.rows[0].n).toBe(0);
  });

  it('lists entries page by page, and searches by the start of the identifier in any letter case', async () => {
    const segment = await createSegment(stack, project);
    const users = [evmAddress(0xab01), evmAddress(0xab02), evmAddress(0xcd03), 'ann@example.com', 'an_n@example.com'];
    await stack.api.post(`${entriesPath(segment.id)}/batch?wait=true`, {
      key: project.keys.admin,
      body: { entries: [...users.slice(0, 3).map(evm), ...users.slice(3).map((identifier) => ({ identifier, identifier_type: 'email' }))] },
    });

    const firstPage = await stack.api.get(`${entriesPath(segment.id)}?page_size=2`, { key: project.keys.readOnly });
    expect(firstPage.status).toBe(200);
    expect(firstPage.body).toMatchObject({ total_results: 5, page: 1, page_size: 2 });
    expect(firstPage.body.results).toHaveLength(2);
    const secondPage = await stack.api.get(`${entriesPath(segment.id)}?page_size=2&page=2`, { key: project.keys.admin });
    expect(secondPage.body.results).toHaveLength(2);

    const prefix = evmAddress(0xab01).slice(0, 40).toUpperCase().replace('0X', '0x');
    const search = await stack.api.get(`${entriesPath(segment.id)}?search=${prefix}`, { key: project.keys.admin });
    expect(search.body.total_results).toBe(2);
    expect(search.body.results.map((entry: { identifier: string }) => entry.identifier).sort()).toEqual([evmAddress(0xab01), evmAddress(0xab02)]);

    // `_` and `%` are literal in a search, not wildcards.
    const literal = await stack.api.get(`${entriesPath(segment.id)}?search=an_`, { key: project.keys.admin });
    expect(literal.body.results.map((entry: { identifier: string }) => entry.identifier)).toEqual(['an_n@example.com']);
    const none = await stack.api.get(`${entriesPath(segment.id)}?search=%25`, { key: project.keys.admin });
    expect(none.body).toMatchObject({ results: [], total_results: 0 });
  });

  it('refuses an empty search and another project’s audience', async () => {
    const segment = await createSegment(stack, project);
    const empty = await stack.api.get(`${entriesPath(segment.id)}?search=`, { key: project.keys.admin });
    expect(empty.status).toBe(400);
    expect(empty.body.details[0].field).toBe('search');
    const other = await createProject(stack, 'Other program');
    const foreign = await stack.api.get(entriesPath(segment.id, other.id), { key: other.keys.admin });
    expect(foreign.status).toBe(404);
  });
});
