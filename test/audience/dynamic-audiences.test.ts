import { createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

/**
 * Dynamic audiences through HTTP (issue 11 §2): creating one with a condition evaluates it on the
 * worker, POST .../evaluate starts another evaluation, GET .../evaluation reports it, and the
 * entries, counts and user lookup include dynamic entries. The users' figures are written to the
 * audience's input tables here (the projection and the traits API fill them in production).
 */
describe('dynamic audiences', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const base = () => `/api/v1/projects/${project.id}/audiences`;
  const admin = () => ({ key: project.keys.admin });

  async function setVolume(n: number, volumeUsd: string) {
    await stack.db.query(
      `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, volume_usd, updated_at) VALUES ($1, 'evm_address', $2, $3, now())
       ON CONFLICT (project_id, identifier_type, identifier) DO UPDATE SET volume_usd = EXCLUDED.volume_usd`,
      [project.id, evmAddress(n), volumeUsd],
    );
  }

  async function completed(audienceId: string, after?: string) {
    return pollUntil(
      async () => {
        const response = await stack.api.get(`${base()}/${audienceId}/evaluation`, admin());
        const done = response.status === 200 && response.body.status === 'completed' && (!after || response.body.finished_at > after);
        return done ? response.body : undefined;
      },
      { timeoutMs: 15_000, what: 'the evaluation to complete' },
    );
  }

  async function entryIds(audienceId: string) {
    const response = await stack.api.get(`/v1/audience-segments/${audienceId}/entries?page_size=100`, { key: project.keys.service });
    expect(response.status).toBe(200);
    return (response.body.results as Array<{ identifier: string; kind: string; source: string }>).map((entry) => `${entry.identifier}:${entry.kind}:${entry.source}`).sort();
  }

  it('evaluates a new dynamic audience, removes users that stop matching on evaluate, and leaves static entries alone', async () => {
    await setVolume(1, '150');
    await setVolume(2, '99.5');
    await setVolume(3, '1000');
    const audience = await createSegment(stack, project, { condition: { metric: 'volume_usd', op: 'gte', value: '100' } });
    expect(await completed(audience.id)).toEqual({
      status: 'completed',
      started_at: expect.any(String),
      finished_at: expect.any(String),
      matched: 2,
      added: 2,
      removed: 0,
    });
    expect(await entryIds(audience.id)).toEqual([`${evmAddress(1)}:dynamic:condition`, `${evmAddress(3)}:dynamic:condition`]);

    const added = await stack.api.post(`${base()}/${audience.id}/entries`, { ...admin(), body: { identifier: evmAddress(2), identifier_type: 'evm_address' } });
    expect(added.status).toBe(201);
    await setVolume(1, '10');
    const first = await completed(audience.id);
    stack.clock.advance(1_000);
    const started = await stack.api.post(`${base()}/${audience.id}/evaluate`, admin());
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: expect.stringMatching(/^(queued|active|completed)$/) });
    expect(await completed(audience.id, first.finished_at)).toMatchObject({ matched: 1, added: 0, removed: 1 });
    expect(await entryIds(audience.id)).toEqual([`${evmAddress(2)}:static:dashboard`, `${evmAddress(3)}:dynamic:condition`]);
    expect((await stack.api.get(`${base()}/${audience.id}`, admin())).body.entries_count).toBe(2);

    const lookup = await stack.api.get(`/v1/audiences/audience-segments/user?user_identifier=${evmAddress(3)}&user_identifier_type=evm_address`, { key: project.keys.service });
    expect(lookup.status).toBe(200);
    expect(lookup.body.results.map((result: { id: string }) => result.id)).toContain(audience.id);
  });

  it('re-evaluates when PATCH changes the condition', async () => {
    await setVolume(4, '5000');
    const audience = await createSegment(stack, project, { condition: { metric: 'volume_usd', op: 'gte', value: '100000' } });
    const first = await completed(audience.id);
    expect(await entryIds(audience.id)).toEqual([]);
    stack.clock.advance(1_000);
    const patched = await stack.api.patch(`${base()}/${audience.id}`, { ...admin(), body: { condition: { metric: 'volume_usd', op: 'gte', value: '4000' } } });
    expect(patched.status).toBe(200);
    expect(await completed(audience.id, first.finished_at)).toMatchObject({ added: 1 });
    expect(await entryIds(audience.id)).toEqual([`${evmAddress(4)}:dynamic:condition`]);
  });

  it('answers 400 AUDIENCE_NOT_DYNAMIC to evaluate a static audience, 404 for its evaluation, and 404 for an unknown audience', async () => {
    const plain = await createSegment(stack, project);
    const evaluate = await stack.api.post(`${base()}/${plain.id}/evaluate`, admin());
    expect(evaluate.status).toBe(400);
    expect(evaluate.body).toMatchObject({ status: 400, code: 'AUDIENCE_NOT_DYNAMIC', details: [] });
    const evaluation = await stack.api.get(`${base()}/${plain.id}/evaluation`, admin());
    expect(evaluation.status).toBe(404);
    expect(evaluation.body.code).toBe('EVALUATION_NOT_FOUND');
    expect((await stack.api.post(`${base()}/00000000-0000-4000-8000-000000000000/evaluate`, admin())).status).toBe(404);
    expect((await stack.api.get(`${base()}/not-an-id/evaluation`, admin())).status).toBe(404);
  });
});
