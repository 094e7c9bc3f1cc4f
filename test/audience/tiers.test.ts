import { randomUUID } from 'node:crypto';
import { createProject, createSegment, evmAddress, mixedCase, useStackWithProject } from '../helpers/fixtures';
import { grpcRefusal, useServiceClients } from '../helpers/rpc';

/**
 * Tiers through the boundaries: tier_rank on the audience create and PATCH (status codes, bodies,
 * the standard error body, roles, the OpenAPI document) and GetUserTiers over gRPC, which the agency
 * service calls. The many-case rules are in test/medium/audience/tiers.test.ts.
 */
describe('audience tiers', () => {
  const { stack, project } = useStackWithProject();
  const clients = useServiceClients(stack);

  const base = () => `/api/v1/projects/${project.id}/audiences`;
  const patch = (segmentId: string, body: Record<string, unknown>, key = project.keys.admin) =>
    stack.api.patch(`${base()}/${segmentId}`, { key, body });

  it('sets tier_rank on create and shows it in the segment body; null when the audience is no tier', async () => {
    const created = await stack.api.post(base(), { key: project.keys.admin, body: { name: 'Gold tier', tier_rank: 3 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Gold tier', tier_rank: 3 });
    const fetched = await stack.api.get(`${base()}/${created.body.id}`, { key: project.keys.readOnly });
    expect(fetched.body.tier_rank).toBe(3);
    expect(await createSegment(stack, project)).toHaveProperty('tier_rank', null);
  });

  it('changes, keeps and clears tier_rank with PATCH', async () => {
    const segment = await createSegment(stack, project, { tier_rank: 10 });
    const changed = await patch(segment.id, { tier_rank: 11 });
    expect(changed.status).toBe(200);
    expect(changed.body.tier_rank).toBe(11);
    const renamed = await patch(segment.id, { name: 'Renamed tier' });
    expect(renamed.body).toMatchObject({ name: 'Renamed tier', tier_rank: 11 });
    const cleared = await patch(segment.id, { tier_rank: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.tier_rank).toBeNull();
  });

  it('answers 409 TIER_RANK_TAKEN, in the standard error body, for a rank another audience has, and changes nothing', async () => {
    await createSegment(stack, project, { tier_rank: 20 });
    const other = await createSegment(stack, project, { tier_rank: 21 });
    const taken = await patch(other.id, { tier_rank: 20, name: 'Would be renamed' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      status: 409,
      code: 'TIER_RANK_TAKEN',
      message: expect.stringContaining('already has this tier rank'),
      details: [{ field: 'tier_rank', reason: expect.any(String) }],
    });
    const unchanged = await stack.api.get(`${base()}/${other.id}`, { key: project.keys.admin });
    expect(unchanged.body).toMatchObject({ name: other.name, tier_rank: 21 });
    const onCreate = await stack.api.post(base(), { key: project.keys.admin, body: { name: 'Duplicate rank', tier_rank: 20 } });
    expect(onCreate.status).toBe(409);
    expect(onCreate.body.code).toBe('TIER_RANK_TAKEN');
    // Another project has ranks of its own.
    const own = await createProject(stack);
    expect((await createSegment(stack, own, { tier_rank: 20 })).tier_rank).toBe(20);
  });

  let nextRank = 99;
  it.each([
    ['zero', 0],
    ['a negative rank', -2],
    ['a fraction', 2.5],
    ['a string', '3'],
    ['a rank over 10,000', 10_001],
    ['a rank beyond 32 bits', 2 ** 40],
  ])('answers 400 naming tier_rank for %s, and changes nothing', async (_case, rank) => {
    // A rank of its own (ranks are unique per project): 100, 101, … one per case.
    const segment = await createSegment(stack, project, { tier_rank: (nextRank += 1) });
    const refused = await patch(segment.id, { tier_rank: rank });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'tier_rank' })] });
    expect((await stack.api.get(`${base()}/${segment.id}`, { key: project.keys.admin })).body.tier_rank).toBe(segment.tier_rank);
    const onCreate = await stack.api.post(base(), { key: project.keys.admin, body: { name: `Bad rank ${randomUUID()}`, tier_rank: rank } });
    expect(onCreate.status).toBe(400);
  });

  it('lets only admin keys change a tier rank', async () => {
    const segment = await createSegment(stack, project);
    expect((await patch(segment.id, { tier_rank: 2_000 }, project.keys.readOnly)).status).toBe(403);
    expect((await patch(segment.id, { tier_rank: 2_000 }, project.keys.service)).status).toBe(403);
    expect((await stack.api.get(`${base()}/${segment.id}`, { key: project.keys.admin })).body.tier_rank).toBeNull();
  });

  it('documents tier_rank in /openapi.json: in the segment, the create and the PATCH body, and the 409', async () => {
    const document = (await stack.api.get('/openapi.json')).body;
    const text = JSON.stringify(document);
    const operation = document.paths['/api/v1/projects/{projectId}/audiences/{audienceId}'].patch;
    expect(JSON.stringify(operation.requestBody)).toContain('tier_rank');
    expect(JSON.stringify(operation.responses['200'])).toContain('tier_rank');
    expect(operation.responses['409'].description).toContain('TIER_RANK_TAKEN');
    expect(JSON.stringify(document.paths['/api/v1/projects/{projectId}/audiences'].post.requestBody)).toContain('tier_rank');
    expect(text).toContain('a higher rank is a higher tier');
  });

  describe('GetUserTiers (gRPC)', () => {
    it('answers each user’s highest-ranked tier audience in its project, in the order asked; a user in none gets none', async () => {
      const own = await createProject(stack);
      const bronze = await createSegment(stack, own, { name: 'Bronze', tier_rank: 1 });
      const gold = await createSegment(stack, own, { name: 'Gold', tier_rank: 5 });
      const plain = await createSegment(stack, own, { name: 'Plain' });
      const add = (segmentId: string, n: number) =>
        stack.api.post(`/api/v1/projects/${own.id}/audiences/${segmentId}/entries`, {
          key: own.keys.admin,
          body: { identifier: evmAddress(n), identifier_type: 'evm_address' },
        });
      await add(bronze.id, 1);
      await add(gold.id, 1);
      await add(plain.id, 2);
      await add(bronze.id, 3);

      const answer = await clients.audience.getUserTiers({
        lookups: [
          { projectId: own.id, user: { identifier: mixedCase(evmAddress(1)), identifierType: 'evm_address' } },
          { projectId: own.id, user: { identifier: evmAddress(2), identifierType: 'evm_address' } },
          { projectId: own.id, user: { identifier: 'not-an-address', identifierType: 'evm_address' } },
          { projectId: own.id, user: { identifier: evmAddress(3), identifierType: 'evm_address' } },
          { projectId: project.id, user: { identifier: evmAddress(1), identifierType: 'evm_address' } },
        ],
      });
      const none = { tier: undefined, error: undefined };
      expect(answer.results).toEqual([
        { ...none, tier: { segmentId: gold.id, name: 'Gold', tierRank: 5 } },
        none,
        { ...none, error: expect.objectContaining({ code: 'VALIDATION_FAILED' }) },
        { ...none, tier: { segmentId: bronze.id, name: 'Bronze', tierRank: 1 } },
        none,
      ]);
    });

    it('refuses a call of more than 1,000 lookups as a whole', async () => {
      const lookups = Array.from({ length: 1_001 }, (_, i) => ({
        projectId: project.id,
        user: { identifier: evmAddress(i), identifierType: 'evm_address' },
      }));
      expect(await grpcRefusal(clients.audience.getUserTiers({ lookups }))).toMatchObject({ code: 'TOO_MANY_LOOKUPS' });
    });
  });
});
