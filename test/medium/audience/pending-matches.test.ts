import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { PendingMatchDrainer } from '../../../services/audience/jobs/pending-match-drainer';
import {
  claimPendingMatches,
  PendingMatchRepository,
  recordPendingMatches,
} from '../../../services/audience/repositories/pending-matches.repository';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import { conditionInputs } from '../../helpers/condition-inputs';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress } from '../../helpers/evm-addresses';
import { pollUntil } from '../../helpers/poll';

const user = (n: number): UserIdentifier => ({ identifier: evmAddress(n), identifierType: 'evm_address' });

/**
 * The users incremental matching still owes a match (migration 0007): recorded in the
 * writer's transaction, one row per user with its earliest change, claimed by the matching
 * transaction and gone only when it commits; and the drainer that decides when.
 */
describe('pending matches (repository, drainer)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const record = (projectId: string, users: UserIdentifier[], at: Date) =>
    harness.db.transaction().execute((trx) => recordPendingMatches(trx, projectId, users, at));
  const pending = async (projectId: string) =>
    (await harness.sql.query('SELECT identifier, changed_at FROM audience.pending_matches WHERE project_id = $1 ORDER BY identifier', [projectId]))
      .rows as Array<{
      identifier: string;
      changed_at: Date;
    }>;
  const entries = async (segmentId: string) =>
    (await harness.sql.query('SELECT identifier FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [segmentId])).rows.map(
      (row) => row.identifier as string,
    );

  /** A dynamic segment over trait `vip`, evaluated (nobody matches yet). */
  async function vipSegment(projectId: string) {
    const segment = await harness.domain.segments.create(projectId, {
      name: `VIP ${randomUUID()}`,
      conditionJson: JSON.stringify({ metric: 'trait:vip', op: 'eq', value: true }),
    });
    await harness.domain.evaluations.run(segment.id, 1);
    return segment;
  }

  it('keeps one row per user, with its earliest change, whatever the order and repeats of the writes', async () => {
    const projectId = randomUUID();
    const t0 = new Date('2026-11-21T12:00:00.000Z');
    const later = new Date(t0.getTime() + 5_000);
    const earlier = new Date(t0.getTime() - 5_000);
    await record(projectId, [user(1), user(2), user(1)], t0);
    await record(projectId, [user(1), user(3)], later);
    await record(projectId, [user(2)], earlier);
    expect(await pending(projectId)).toEqual([
      { identifier: evmAddress(1), changed_at: t0 },
      { identifier: evmAddress(2), changed_at: earlier },
      { identifier: evmAddress(3), changed_at: later },
    ]);
    // Other projects' users are their own rows.
    await record(randomUUID(), [user(1)], later);
    expect(await pending(projectId)).toHaveLength(3);
  });

  it('gives claimed users back when the matching transaction rolls back, and two claims at once never share a user nor wait', async () => {
    const projectId = randomUUID();
    const at = new Date('2026-11-21T12:00:00.000Z');
    await record(projectId, [user(1), user(2), user(3)], at);
    await expect(
      harness.db.transaction().execute(async (trx) => {
        expect(await claimPendingMatches(trx, projectId, 10)).toHaveLength(3);
        throw new Error('the process died mid-pass');
      }),
    ).rejects.toThrow('mid-pass');
    expect(await pending(projectId)).toHaveLength(3);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first: UserIdentifier[] = [];
    let claimedFirst!: () => void;
    const firstClaimed = new Promise<void>((resolve) => (claimedFirst = resolve));
    const holding = harness.db.transaction().execute(async (trx) => {
      first = await claimPendingMatches(trx, projectId, 2);
      claimedFirst();
      await held;
    });
    await firstClaimed;
    const second = await harness.db.transaction().execute((trx) => claimPendingMatches(trx, projectId, 10));
    release();
    await holding;
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(1);
    expect(new Set([...first, ...second].map((u) => u.identifier))).toEqual(new Set([1, 2, 3].map(evmAddress)));
    expect(await pending(projectId)).toEqual([]);
  });

  it('leaves the users pending, and the entries untouched, when a match fails', async () => {
    const projectId = randomUUID();
    const segment = await vipSegment(projectId);
    await conditionInputs(harness.db, projectId).trait(user(1), 'vip', true);
    await conditionInputs(harness.db, projectId).pending(user(1));
    // A stored condition that no longer parses: a bug the pass must not turn into lost users.
    await harness.sql.query(`UPDATE audience.segments SET condition = '{"metric":"nope","op":"eq","value":1}' WHERE id = $1`, [segment.id]);
    await expect(harness.domain.evaluations.matchPending(projectId, 100)).rejects.toThrow('does not parse');
    expect((await pending(projectId)).map((row) => row.identifier)).toEqual([evmAddress(1)]);
    expect(await entries(segment.id)).toEqual([]);
  });

  it('drains on the relay pass only users due (a debounce after their first change), and on wake-up one debounce later', async () => {
    const projectId = randomUUID();
    const segment = await vipSegment(projectId);
    const drainer = new PendingMatchDrainer(
      harness.domain.evaluations,
      new PendingMatchRepository(harness.db),
      harness.clock,
      2_000,
      harness.logs.logger('drainer'),
    );
    drainer.onStart();
    try {
      // Written by the traits API: the pending rows come with the traits.
      await harness.domain.traits.upsert(
        projectId,
        [1, 2].map((n) => ({ identifier: evmAddress(n), identifierType: 'evm_address', name: 'vip', value: { flag: true } })),
      );
      expect((await pending(projectId)).map((row) => row.identifier)).toEqual([evmAddress(1), evmAddress(2)]);
      // Not due yet on the clock: the relay's pass leaves them (and plans their timer).
      await drainer.pass();
      expect(await entries(segment.id)).toEqual([]);
      harness.clock.advance(2_000);
      await drainer.pass();
      expect(await entries(segment.id)).toEqual([evmAddress(1), evmAddress(2)]);
      expect(await pending(projectId)).toEqual([]);

      // A commit's wake-up: matched by the timer, one debounce (of the clock) later, with no pass asked for.
      await harness.domain.traits.upsert(projectId, [
        { identifier: evmAddress(3), identifierType: 'evm_address', name: 'vip', value: { flag: true } },
      ]);
      drainer.wake();
      await pollUntil(async () => (await entries(segment.id)).length === 3 || undefined, {
        timeoutMs: 10_000,
        intervalMs: 20,
        what: 'user 3 matched after the wake-up',
      });
      expect(await pending(projectId)).toEqual([]);
    } finally {
      await drainer.onStop();
    }
  });
});
