import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import type { TraitInput } from '../../../services/audience/domain/trait-fields';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress, mixedCase } from '../../helpers/evm-addresses';

const at = (iso: string) => new Date(iso);
const num = (n: number, name: string, text: string, updatedAt?: string): TraitInput => ({
  identifier: evmAddress(n),
  identifierType: 'evm_address',
  name,
  value: { number: text },
  updatedAt: updatedAt ? at(updatedAt) : undefined,
});

/**
 * User traits' rules: last write per (user, name) wins by updated_at (arrival when
 * unset), inside a batch and across batches, concurrent ones included; numbers stay exact; exactly
 * the users whose traits were written are recorded for re-matching, with the write.
 */
describe('user traits (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const traits = () => harness.domain.traits;
  const valueOf = async (projectId: string, n: number, name: string) =>
    (
      await harness.sql.query(
        `SELECT value::text AS value, updated_at FROM audience.user_traits WHERE project_id = $1 AND identifier = $2 AND name = $3`,
        [projectId, evmAddress(n), name],
      )
    ).rows[0] as { value: string; updated_at: Date } | undefined;

  it.each([
    ['an older write', '2026-11-21T09:00:00.000Z', { written: 0, ignored: 1 }, '10'],
    ['a write as old as the stored one', '2026-11-21T10:00:00.000Z', { written: 1, ignored: 0 }, '5'],
    ['a newer write', '2026-11-21T10:00:00.001Z', { written: 1, ignored: 0 }, '5'],
  ])('against a stored write, %s', async (_case, updatedAt, counts, value) => {
    const projectId = randomUUID();
    await traits().upsert(projectId, [num(1, 'points', '10', '2026-11-21T10:00:00.000Z')]);
    expect(await traits().upsert(projectId, [num(1, 'points', '5', updatedAt)])).toEqual({ received: 1, ...counts });
    expect((await valueOf(projectId, 1, 'points'))!.value).toBe(value);
  });

  it('inside a batch keeps the latest of each (user, name), the later one on a tie, whatever the order', async () => {
    const projectId = randomUUID();
    const outcome = await traits().upsert(projectId, [
      num(1, 'a', '3', '2026-11-21T10:03:00.000Z'),
      num(1, 'a', '1', '2026-11-21T10:01:00.000Z'),
      num(1, 'b', '1', '2026-11-21T10:00:00.000Z'),
      { ...num(1, 'b', '2', '2026-11-21T10:00:00.000Z'), identifier: mixedCase(evmAddress(1)) },
      num(2, 'a', '9'),
    ]);
    expect(outcome).toEqual({ received: 5, written: 3, ignored: 2 });
    expect((await valueOf(projectId, 1, 'a'))!.value).toBe('3');
    expect((await valueOf(projectId, 1, 'b'))!.value).toBe('2');
    expect((await valueOf(projectId, 2, 'a'))!.updated_at).toEqual(harness.clock.now());
  });

  it('concurrent batches over the same users in opposite orders end with the latest write of each, without deadlock', async () => {
    const projectId = randomUUID();
    const users = Array.from({ length: 200 }, (_, i) => i + 1);
    const batch = (value: string, stamp: string, order: number[]) => order.map((n) => num(n, 'score', value, stamp));
    const early = batch('1', '2026-11-21T10:00:00.000Z', users);
    const late = batch('2', '2026-11-21T10:00:01.000Z', [...users].reverse());
    const outcomes = await Promise.all([traits().upsert(projectId, early), traits().upsert(projectId, late), traits().upsert(projectId, early)]);
    expect(outcomes[1]).toEqual({ received: 200, written: 200, ignored: 0 });
    const { rows } = await harness.sql.query(
      `SELECT value::text AS value, count(*)::int AS n FROM audience.user_traits WHERE project_id = $1 GROUP BY 1`,
      [projectId],
    );
    expect(rows).toEqual([{ value: '2', n: 200 }]);
  });

  it('keeps numbers exact and reads them back as written (jsonb normalises the notation only)', async () => {
    const projectId = randomUUID();
    const texts = [
      '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      '0.000000000000000000000000000001',
      '1e24',
      '-0.5',
      '0',
    ];
    await traits().upsert(
      projectId,
      texts.map((text, i) => num(1, `n${i}`, text)),
    );
    const page = await traits().list(projectId, evmAddress(1), 'evm_address', { page: 1, pageSize: 25, offset: 0 });
    expect(page.records.map((record) => record.value)).toEqual([
      { kind: 'number', text: texts[0] },
      { kind: 'number', text: texts[1] },
      { kind: 'number', text: '1000000000000000000000000' },
      { kind: 'number', text: '-0.5' },
      { kind: 'number', text: '0' },
    ]);
  });

  it('records the distinct users written for re-matching with the write, and not those ignored', async () => {
    const projectId = randomUUID();
    const pending = async () =>
      (
        await harness.sql.query(
          'SELECT identifier, identifier_type, changed_at FROM audience.pending_matches WHERE project_id = $1 ORDER BY identifier',
          [projectId],
        )
      ).rows;
    await traits().upsert(projectId, [num(1, 'x', '5', '2026-11-21T10:00:00.000Z')]);
    await harness.sql.query('DELETE FROM audience.pending_matches WHERE project_id = $1', [projectId]);
    const first = harness.clock.now();
    await traits().upsert(projectId, [
      num(1, 'x', '4', '2026-11-21T09:00:00.000Z'),
      num(2, 'x', '1'),
      num(2, 'y', '1'),
      { ...num(3, 'x', '1'), identifier: mixedCase(evmAddress(3)) },
    ]);
    expect(await pending()).toEqual([
      { identifier: evmAddress(2), identifier_type: 'evm_address', changed_at: first },
      { identifier: evmAddress(3), identifier_type: 'evm_address', changed_at: first },
    ]);
    // A later write of a pending user keeps the first time; an ignored write records nobody.
    harness.clock.advance(500);
    await traits().upsert(projectId, [num(2, 'x', '2'), num(1, 'x', '3', '2026-11-21T08:00:00.000Z')]);
    expect(await pending()).toEqual([
      { identifier: evmAddress(2), identifier_type: 'evm_address', changed_at: first },
      { identifier: evmAddress(3), identifier_type: 'evm_address', changed_at: first },
    ]);
  });

  it('refuses a batch naming each invalid trait and writes nothing', async () => {
    const projectId = randomUUID();
    await expect(
      traits().upsert(projectId, [
        num(1, 'good', '1'),
        num(1, 'has:colon', '1'),
        { ...num(1, 'v', '1'), value: {} },
        { ...num(1, 'v', '1'), value: { number: '1', text: 'a' } },
        { ...num(1, 'v', '1'), identifierType: 'btc' },
      ]),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'traits[1].name', reason: expect.any(String) },
        { field: 'traits[2].value', reason: 'must be a number, a string or a boolean' },
        { field: 'traits[3].value', reason: 'must be a number, a string or a boolean' },
        { field: 'traits[4].identifier_type', reason: expect.any(String) },
      ],
    });
    await expect(traits().upsert(projectId, [])).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await valueOf(projectId, 1, 'good')).toBeUndefined();
  });
});
