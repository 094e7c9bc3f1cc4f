import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { parseCondition } from '../../../services/audience/domain/condition';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';

const currency = '5f0c7f2e-8d7e-4d0a-9a43-0a4c2b1e9f11';

/** The condition language through the domain: what is accepted is stored as sent, what is refused changes nothing (the language's rules alone: test/unit/audience/conditions.test.ts). */
describe('the condition language (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const problems = (condition: unknown) => parseCondition(condition).violations;

  it.each([
    ['a bare comparison', { metric: 'volume_usd', op: 'gte', value: '100000' }],
    ['a decimal string on a USD figure', { metric: 'revenue_usd', op: 'gt', value: '12.345' }],
    ['a JSON number on a USD figure', { metric: 'referred_volume_usd', op: 'lt', value: 99.5 }],
    ['conversions of one name over a window', { metric: 'conversions', op: 'gte', value: 3, conversion_name: 'swap', window_days: 30 }],
    ['referred users in a list', { metric: 'referred_users', op: 'in', value: [1, '2', 3] }],
    ['earnings in one currency', { metric: 'earnings', op: 'gte', value: '1000000000000000000000', currency_id: currency, window_days: 7 }],
    ['a string trait', { metric: 'trait:country', op: 'eq', value: 'FR' }],
    ['a boolean trait', { metric: 'trait:kyc', op: 'neq', value: false }],
    ['a numeric trait ordered', { metric: 'trait:token_balance', op: 'gt', value: 10.5 }],
    ['a trait in a mixed list', { metric: 'trait:tier', op: 'in', value: ['gold', 2, true] }],
    [
      'nested groups',
      {
        all: [
          { metric: 'volume_usd', op: 'gte', value: '100' },
          {
            any: [
              { metric: 'trait:vip', op: 'eq', value: true },
              { metric: 'conversions', op: 'gt', value: 5 },
            ],
          },
        ],
      },
    ],
  ])('accepts %s', async (_case, condition) => {
    expect(problems(condition)).toEqual([]);
    const segment = await harness.domain.segments.create(randomUUID(), { name: 'Dynamic', conditionJson: JSON.stringify(condition) });
    expect(JSON.parse(segment.conditionJson!)).toEqual(condition);
  });

  it('refuses through the domain on create and on update with every path, and changes nothing', async () => {
    const projectId = randomUUID();
    const bad = JSON.stringify({
      all: [
        { metric: 'volume_usd', op: 'gte', value: 1 },
        { metric: 'trait:x', op: 'gt', value: 'high' },
      ],
    });
    await expect(harness.domain.segments.create(projectId, { name: 'Bad', conditionJson: bad })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      kind: 'invalid_argument',
      details: [{ field: 'condition.all[1].value', reason: expect.stringContaining('number') }],
    });
    const good = JSON.stringify({ metric: 'conversions', op: 'gte', value: 1 });
    const segment = await harness.domain.segments.create(projectId, { name: 'Good', conditionJson: good });
    await expect(harness.domain.segments.update(projectId, segment.id, ['condition_json'], { conditionJson: bad })).rejects.toMatchObject({
      details: [{ field: 'condition.all[1].value', reason: expect.any(String) }],
    });
    expect(JSON.parse((await harness.domain.segments.get(projectId, segment.id)).conditionJson!)).toEqual(JSON.parse(good));
    const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM audience.segments WHERE project_id = $1', [projectId]);
    expect(rows[0].n).toBe(1);
  });
});
