import { createProject, createSegment, evmAddress, useStackWithProject } from '../helpers/fixtures';

describe('audience segments (dashboard)', () => {
  const { stack, project } = useStackWithProject();

  const base = () => `/api/v1/projects/${project.id}/audiences`;

  it('creates a static segment and a dynamic one (with a condition)', async () => {
    const created = await stack.api.post(base(), { key: project.keys.admin, body: { name: 'Whales', description: 'Big traders' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Whales',
      description: 'Big traders',
      type: 'static',
      condition: null,
      entries_count: 0,
      tier_rank: null,
      badge: null,
      created_at: stack.clock.now().toISOString(),
      updated_at: stack.clock.now().toISOString(),
    });

    const condition = { metric: 'volume_usd', op: 'gte', value: '100000' };
    const dynamic = await stack.api.post(base(), { key: project.keys.admin, body: { name: 'Active traders', condition } });
    expect(dynamic.status).toBe(201);
    expect(dynamic.body).toMatchObject({ type: 'dynamic', condition, description: null });
  });

  it('gets, lists and pages segments in creation order', async () => {
    const own = await createProject(stack);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await createSegment(stack, own, { name: `Tier ${i}` })).id);
      stack.clock.advance(1_000);
    }
    const page = await stack.api.get(`/api/v1/projects/${own.id}/audiences?page=2&page_size=2`, { key: own.keys.admin });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total_results: 3, page: 2, page_size: 2 });
    expect(page.body.results.map((s: { id: string }) => s.id)).toEqual([ids[2]]);

    const one = await stack.api.get(`/api/v1/projects/${own.id}/audiences/${ids[0]}`, { key: own.keys.readOnly });
    expect(one.status).toBe(200);
    expect(one.body.name).toBe('Tier 0');

    const publicList = await stack.api.get('/v1/audiences/audience-segments?page_size=100', { key: own.keys.service });
    expect(publicList.body).toMatchObject({ total_results: 3, page: 1, page_size: 100 });
  });

  it('refuses out-of-range paging with 400', async () => {
    for (const query of ['page=0', 'page_size=101', 'page_size=abc']) {
      const response = await stack.api.get(`${base()}?${query}`, { key: project.keys.admin });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses invalid fields with 400 naming each, and writes nothing', async () => {
    const before = await stack.db.query('SELECT count(*)::int AS n FROM audience.segments');
    // What the HTTP schema refuses, and one rule of the service (every rule: test/medium/audience/segments.test.ts).
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'ok', condition: [1, 2] }, 'condition'],
      [{ name: 'ok', condition: 'volume > 5' }, 'condition'],
      [{ name: 'ok', colour: 'red' }, 'colour'],
      [{}, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
    ];
    for (const [body, field] of cases) {
      const response = await stack.api.post(base(), { key: project.keys.admin, body });
      expect(response.status).toBe(400);
      expect(response.body.details.length).toBeGreaterThan(0);
      expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const after = await stack.db.query('SELECT count(*)::int AS n FROM audience.segments');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('answers 409 to a second segment of the same name (any letter case)', async () => {
    await createSegment(stack, project, { name: 'Unique name' });
    const again = await stack.api.post(base(), { key: project.keys.admin, body: { name: 'UNIQUE NAME' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('AUDIENCE_NAME_TAKEN');
    // Another project may use the name.
    const other = await createProject(stack);
    expect((await stack.api.post(`/api/v1/projects/${other.id}/audiences`, { key: other.keys.admin, body: { name: 'Unique name' } })).status).toBe(
      201,
    );
  });

  it('updates only the fields sent; null clears description and condition', async () => {
    const segment = await createSegment(stack, project, {
      name: 'Before',
      description: 'keep',
      condition: { metric: 'conversions', op: 'gt', value: 1 },
    });
    stack.clock.advance(60_000);
    const renamed = await stack.api.patch(`${base()}/${segment.id}`, { key: project.keys.admin, body: { name: 'After' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'After', description: 'keep', type: 'dynamic', updated_at: stack.clock.now().toISOString() });

    const cleared = await stack.api.patch(`${base()}/${segment.id}`, { key: project.keys.admin, body: { description: null, condition: null } });
    expect(cleared.body).toMatchObject({ name: 'After', description: null, condition: null, type: 'static' });

    const badName = await stack.api.patch(`${base()}/${segment.id}`, { key: project.keys.admin, body: { name: null } });
    expect(badName.status).toBe(400);
  });

  it('deletes a segment with its entries and badge', async () => {
    const segment = await createSegment(stack, project);
    await stack.api.post(`/v1/audience-segments/${segment.id}/badge`, { key: project.keys.service, body: { name: 'B' } });
    await stack.api.post(`${base()}/${segment.id}/entries`, {
      key: project.keys.admin,
      body: { identifier: evmAddress(7), identifier_type: 'evm_address' },
    });

    const deleted = await stack.api.delete(`${base()}/${segment.id}`, { key: project.keys.admin });
    expect(deleted.status).toBe(204);
    expect((await stack.api.get(`${base()}/${segment.id}`, { key: project.keys.admin })).status).toBe(404);
    const leftovers = await stack.db.query(
      `SELECT (SELECT count(*) FROM audience.entries WHERE segment_id = $1)::int AS entries,
              (SELECT count(*) FROM audience.badges WHERE segment_id = $1)::int AS badges`,
      [segment.id],
    );
    expect(leftovers.rows[0]).toEqual({ entries: 0, badges: 0 });
    expect((await stack.api.delete(`${base()}/${segment.id}`, { key: project.keys.admin })).status).toBe(404);
  });

  it('answers 404 for an unknown, malformed or foreign segment id', async () => {
    const other = await createProject(stack);
    const foreign = await createSegment(stack, other);
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', foreign.id]) {
      const response = await stack.api.get(`${base()}/${id}`, { key: project.keys.admin });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('AUDIENCE_NOT_FOUND');
    }
    const patched = await stack.api.patch(`${base()}/${foreign.id}`, { key: project.keys.admin, body: { name: 'stolen' } });
    expect(patched.status).toBe(404);
    const still = await stack.api.get(`/api/v1/projects/${other.id}/audiences/${foreign.id}`, { key: other.keys.admin });
    expect(still.body.name).toBe(foreign.name);
  });
});
