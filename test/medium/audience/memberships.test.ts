import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { MAX_MEMBERSHIP_QUERIES } from '../../../services/audience/domain/user-audience.service';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress } from '../../helpers/evm-addresses';

const evm = (n: number) => ({ identifier: evmAddress(n), identifierType: 'evm_address' });
const ask = (segmentId: string, user: { identifier: string; identifierType: string }) => ({ segmentId, ...user });

/**
 * Membership questions (CheckMemberships, what payout terms' allowlists ask per batch of
 * conversions): whether each user is in each segment of one project, by static or dynamic entry,
 * answered in order with one statement; segments the project does not have have no members.
 */
describe('memberships of many users in many segments (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const memberships = (projectId: string, queries: Array<ReturnType<typeof ask>>) => harness.domain.userAudiences.memberships(projectId, queries);

  /** A dynamic segment of users whose trait vip is true, evaluated once the traits are written (as the worker would). */
  async function vipSegment(projectId: string, vips: number[]) {
    const segment = await harness.domain.segments.create(projectId, {
      name: `VIP ${randomUUID()}`,
      conditionJson: JSON.stringify({ metric: 'trait:vip', op: 'eq', value: true }),
    });
    await harness.domain.traits.upsert(
      projectId,
      vips.map((n) => ({ ...evm(n), name: 'vip', value: { flag: true } })),
    );
    const { requested } = await harness.domain.evaluations.start(projectId, segment.id);
    await harness.domain.evaluations.run(segment.id, requested);
    return segment;
  }

  it('answers each (segment, user) in order: static and dynamic entries are members, others are not', async () => {
    const projectId = randomUUID();
    const listed = await harness.domain.segments.create(projectId, { name: 'Listed' });
    await harness.domain.entries.add(projectId, listed.id, evmAddress(1), 'evm_address');
    const vip = await vipSegment(projectId, [2]);
    const kinds = await harness.sql.query('SELECT identifier, kind FROM audience.entries WHERE segment_id = ANY($1) ORDER BY identifier', [
      [listed.id, vip.id],
    ]);
    expect(kinds.rows).toEqual([
      { identifier: evmAddress(1), kind: 'static' },
      { identifier: evmAddress(2), kind: 'dynamic' },
    ]);

    const answer = await memberships(projectId, [
      ask(listed.id, evm(1)),
      ask(listed.id, evm(2)),
      ask(vip.id, evm(2)),
      ask(vip.id, evm(1)),
      ask(listed.id, evm(1)),
    ]);
    expect(answer).toEqual({ members: [true, false, true, false, true], missingSegmentIds: [] });
  });

  it('follows membership as it is now: a removed entry is no member any more', async () => {
    const projectId = randomUUID();
    const listed = await harness.domain.segments.create(projectId, { name: 'Listed' });
    await harness.domain.entries.add(projectId, listed.id, evmAddress(1), 'evm_address');
    expect((await memberships(projectId, [ask(listed.id, evm(1))])).members).toEqual([true]);
    await harness.domain.entries.remove(projectId, listed.id, evmAddress(1), 'evm_address');
    expect((await memberships(projectId, [ask(listed.id, evm(1))])).members).toEqual([false]);
  });

  it('finds no member in a deleted segment or another project’s, and names those segments missing (once each)', async () => {
    const projectId = randomUUID();
    const deleted = await harness.domain.segments.create(projectId, { name: 'Deleted' });
    await harness.domain.entries.add(projectId, deleted.id, evmAddress(1), 'evm_address');
    await harness.domain.segments.delete(projectId, deleted.id);
    const otherProject = randomUUID();
    const foreign = await harness.domain.segments.create(otherProject, { name: 'Theirs' });
    await harness.domain.entries.add(otherProject, foreign.id, evmAddress(1), 'evm_address');
    const unknown = randomUUID();

    const answer = await memberships(projectId, [ask(deleted.id, evm(1)), ask(foreign.id, evm(1)), ask(unknown, evm(1)), ask(foreign.id, evm(2))]);
    expect(answer.members).toEqual([false, false, false, false]);
    expect(answer.missingSegmentIds).toEqual([deleted.id, foreign.id, unknown].sort());
    // In its own project the foreign segment answers.
    expect(await memberships(otherProject, [ask(foreign.id, evm(1))])).toEqual({ members: [true], missingSegmentIds: [] });
  });

  it('answers an empty list with nothing, and a full one of 2,000 questions in order', async () => {
    const projectId = randomUUID();
    expect(await memberships(projectId, [])).toEqual({ members: [], missingSegmentIds: [] });
    const listed = await harness.domain.segments.create(projectId, { name: 'Evens' });
    for (let n = 0; n < 40; n += 2) await harness.domain.entries.add(projectId, listed.id, evmAddress(n), 'evm_address');
    const queries = Array.from({ length: MAX_MEMBERSHIP_QUERIES }, (_, i) => ask(listed.id, evm(i % 40)));
    const answer = await memberships(projectId, queries);
    expect(answer.members).toEqual(queries.map((_, i) => (i % 40) % 2 === 0));
  });

  it.each([
    ['a segment id of no UUID', [ask('gold', evm(1))], 'queries[0].segment_id'],
    ['an invalid user', [ask(randomUUID(), { identifier: '0x12', identifierType: 'evm_address' })], 'queries[0].user'],
    ['an unknown identifier type', [ask(randomUUID(), { identifier: 'x', identifierType: 'fax' })], 'queries[0].user'],
  ])('refuses %s, naming the question', async (_case, queries, field) => {
    await expect(memberships(randomUUID(), queries)).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: [expect.objectContaining({ field: expect.stringContaining(field) })],
    });
  });

  it('refuses a project id of no UUID, and more than 2,000 questions', async () => {
    await expect(memberships('nope', [])).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: [{ field: 'project_id', reason: expect.any(String) }],
    });
    const queries = Array.from({ length: MAX_MEMBERSHIP_QUERIES + 1 }, () => ask(randomUUID(), evm(1)));
    await expect(memberships(randomUUID(), queries)).rejects.toMatchObject({ code: 'TOO_MANY_QUERIES', details: [{ field: 'queries' }] });
  });
});
