import { createProject, createSegment, evmAddress, mixedCase, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

describe('badges and the user audience lookup', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const badgePath = (segmentId: string) => `/v1/audience-segments/${segmentId}/badge`;
  const lookup = (user: string, type = 'evm_address', key = project.keys.service) =>
    stack.api.get(`/v1/audiences/audience-segments/user?user_identifier=${encodeURIComponent(user)}&user_identifier_type=${type}`, { key });
  const add = (segmentId: string, identifier: string, identifier_type = 'evm_address') =>
    stack.api.post(`/api/v1/projects/${project.id}/audiences/${segmentId}/entries`, {
      key: project.keys.admin,
      body: { identifier, identifier_type },
    });

  it('runs the badge lifecycle: create, 409 on a second, update, delete, 404 after', async () => {
    const segment = await createSegment(stack, project);
    const created = await stack.api.post(badgePath(segment.id), {
      key: project.keys.service,
      body: { name: 'Early bird', description: 'Joined in week one', image_url: 'https://cdn.example.com/early.png' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'Early bird',
      description: 'Joined in week one',
      image_url: 'https://cdn.example.com/early.png',
      created_at: stack.clock.now().toISOString(),
      updated_at: stack.clock.now().toISOString(),
    });

    const second = await stack.api.post(badgePath(segment.id), { key: project.keys.service, body: { name: 'Another' } });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('BADGE_EXISTS');

    stack.clock.advance(5_000);
    const updated = await stack.api.patch(badgePath(segment.id), { key: project.keys.service, body: { name: 'Early bird II', image_url: null } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Early bird II',
      description: 'Joined in week one',
      image_url: null,
      updated_at: stack.clock.now().toISOString(),
    });
    const segmentView = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
    expect(segmentView.body.badge).toMatchObject({ name: 'Early bird II' });

    expect((await stack.api.delete(badgePath(segment.id), { key: project.keys.service })).status).toBe(204);
    for (const response of [
      await stack.api.delete(badgePath(segment.id), { key: project.keys.service }),
      await stack.api.patch(badgePath(segment.id), { key: project.keys.service, body: { name: 'x' } }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('BADGE_NOT_FOUND');
    }
    const after = await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segment.id}`, { key: project.keys.admin });
    expect(after.body.badge).toBeNull();
  });

  it('refuses a badge with a non-https image or no name, and stores nothing', async () => {
    const segment = await createSegment(stack, project);
    const bad = [
      [{ name: 'x', image_url: 'http://cdn.example.com/a.png' }, 'image_url'],
      [{ name: 'x', image_url: 'javascript:alert(1)' }, 'image_url'],
      [{ name: '' }, 'name'],
      [{ description: 'no name' }, 'name'],
    ] as const;
    for (const [body, field] of bad) {
      const response = await stack.api.post(badgePath(segment.id), { key: project.keys.service, body });
      expect(response.status).toBe(400);
      expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const rows = await stack.db.query('SELECT count(*)::int AS n FROM audience.badges WHERE segment_id = $1', [segment.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('answers 404 to badge writes on another project’s segment', async () => {
    const other = await createProject(stack);
    const foreign = await createSegment(stack, other);
    const response = await stack.api.post(badgePath(foreign.id), { key: project.keys.service, body: { name: 'x' } });
    expect(response.status).toBe(404);
  });

  it('lists a user’s audiences with badge fields, null where a segment has no badge', async () => {
    const user = evmAddress(0xa11ce);
    const withBadge = await createSegment(stack, project, { name: 'Champions' });
    stack.clock.advance(1_000);
    const withoutBadge = await createSegment(stack, project, { name: 'Newcomers' });
    stack.clock.advance(1_000);
    const notTheirs = await createSegment(stack, project, { name: 'Others' });
    await stack.api.post(badgePath(withBadge.id), {
      key: project.keys.service,
      body: { name: 'Champion', description: 'Top 1%', image_url: 'https://cdn.example.com/champ.png' },
    });
    await add(withBadge.id, user);
    await add(withoutBadge.id, user);
    await add(notTheirs.id, evmAddress(0xb0b));

    const response = await lookup(mixedCase(user));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      results: [
        {
          id: withBadge.id,
          name: 'Champions',
          badge_name: 'Champion',
          badge_description: 'Top 1%',
          badge_image: 'https://cdn.example.com/champ.png',
        },
        { id: withoutBadge.id, name: 'Newcomers', badge_name: null, badge_description: null, badge_image: null },
      ],
    });
  });

  it('answers { results: [] } for a user in no segment', async () => {
    const response = await lookup(evmAddress(0x404404));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ results: [] });
  });

  it('never shows another project’s segments', async () => {
    const other = await createProject(stack);
    const foreign = await createSegment(stack, other);
    const user = evmAddress(0x5ca1ab1e);
    await stack.api.post(`/api/v1/projects/${other.id}/audiences/${foreign.id}/entries`, {
      key: other.keys.admin,
      body: { identifier: user, identifier_type: 'evm_address' },
    });
    expect((await lookup(user)).body).toEqual({ results: [] });
    expect((await lookup(user, 'evm_address', other.keys.service)).body.results).toHaveLength(1);
  });

  it('refuses a lookup without parameters or with an invalid identifier (400)', async () => {
    const missing = await stack.api.get('/v1/audiences/audience-segments/user', { key: project.keys.service });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['user_identifier', 'user_identifier_type']);
    const invalid = await lookup('0xnothex');
    expect(invalid.status).toBe(400);
    const unknownType = await lookup(evmAddress(1), 'phone');
    expect(unknownType.status).toBe(400);
  });

  it('answers concurrent lookups of several projects each on their own, an invalid one failing alone', async () => {
    const other = await createProject(stack);
    const mine = await createSegment(stack, project, { name: 'Concurrent mine' });
    const theirs = await createSegment(stack, other, { name: 'Concurrent theirs' });
    const users = Array.from({ length: 10 }, (_, i) => evmAddress(0xc0c0 + i));
    await stack.api.post(`/v1/audience-segments/${mine.id}/entries/batch?wait=true`, {
      key: project.keys.service,
      body: { entries: users.filter((_, i) => i % 2 === 0).map((identifier) => ({ identifier, identifier_type: 'evm_address' })) },
    });
    await stack.api.post(`/v1/audience-segments/${theirs.id}/entries/batch?wait=true`, {
      key: other.keys.service,
      body: { entries: users.map((identifier) => ({ identifier, identifier_type: 'evm_address' })) },
    });

    const asked = users.flatMap((user, i) => [
      { user, key: project.keys.service, expected: i % 2 === 0 ? [mine.id] : [] },
      { user: mixedCase(user), key: other.keys.service, expected: [theirs.id] },
    ]);
    const [responses, invalid] = await Promise.all([
      Promise.all(asked.map(({ user, key }) => lookup(user, 'evm_address', key))),
      lookup('0x42', 'evm_address', project.keys.service),
    ]);
    responses.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.body.results.map((r: { id: string }) => r.id)).toEqual(asked[i]!.expected);
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'identifier', reason: expect.stringContaining('evm_address') }],
    });
  });
});
