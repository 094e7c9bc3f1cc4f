import { createProject, createSegment, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

/** The dashboard's badge editor with an admin key: the /v1 badge's rules under the project's audience path. */
describe('audience badges for the dashboard', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const badgePath = (audienceId: string, projectId = project.id) => `/api/v1/projects/${projectId}/audiences/${audienceId}/badge`;
  const badgeRows = async (audienceId: string) =>
    (await stack.db.query('SELECT name, description, image_url FROM audience.badges WHERE segment_id = $1', [audienceId])).rows;

  it('creates, refuses a second, changes and removes a badge with an admin key, the audience showing each', async () => {
    const audience = await createSegment(stack, project);
    const created = await stack.api.post(badgePath(audience.id), {
      key: project.keys.admin,
      body: { name: 'Early bird', description: 'Joined in week one', image_url: 'https://cdn.example.com/early.png' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Early bird', description: 'Joined in week one', image_url: 'https://cdn.example.com/early.png' });
    expect(await stack.api.post(badgePath(audience.id), { key: project.keys.admin, body: { name: 'Another' } })).toMatchObject({
      status: 409,
      body: { code: 'BADGE_EXISTS' },
    });

    const updated = await stack.api.patch(badgePath(audience.id), { key: project.keys.admin, body: { name: 'Early bird II', image_url: null } });
    expect(updated).toMatchObject({ status: 200, body: { name: 'Early bird II', description: 'Joined in week one', image_url: null } });
    const shown = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${audience.id}`, { key: project.keys.readOnly });
    expect(shown.body.badge).toMatchObject({ name: 'Early bird II', description: 'Joined in week one', image_url: null });

    expect((await stack.api.delete(badgePath(audience.id), { key: project.keys.admin })).status).toBe(204);
    expect(await badgeRows(audience.id)).toEqual([]);
    expect((await stack.api.patch(badgePath(audience.id), { key: project.keys.admin, body: { name: 'x' } })).status).toBe(404);
  });

  it('refuses bad input naming the field, other roles and other projects, and changes nothing', async () => {
    const audience = await createSegment(stack, project);
    for (const [body, field] of [
      [{ name: 'x', image_url: 'http://cdn.example.com/a.png' }, 'image_url'],
      [{ name: '' }, 'name'],
      [{ name: 'x', colour: 'red' }, 'colour'],
    ] as const) {
      const response = await stack.api.post(badgePath(audience.id), { key: project.keys.admin, body });
      expect(response.status).toBe(400);
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    for (const key of [project.keys.readOnly, project.keys.service]) {
      expect((await stack.api.post(badgePath(audience.id), { key, body: { name: 'x' } })).status).toBe(403);
    }
    const other = await createProject(stack);
    const foreign = await createSegment(stack, other);
    // Another project's audience is not found, under either project's path: the key says nothing about what it cannot reach.
    expect((await stack.api.post(badgePath(foreign.id), { key: project.keys.admin, body: { name: 'x' } })).status).toBe(404);
    expect((await stack.api.post(badgePath(foreign.id, other.id), { key: project.keys.admin, body: { name: 'x' } })).status).toBe(404);
    expect(await badgeRows(audience.id)).toEqual([]);
    expect(await badgeRows(foreign.id)).toEqual([]);
  });
});
