import fc from 'fast-check';
import { CONDITION_LIMITS, METRICS, parseCondition } from '../../../services/audience/domain/condition';

const currency = '5f0c7f2e-8d7e-4d0a-9a43-0a4c2b1e9f11';

/** The condition language: each refusal naming its path, the bounds, and properties over random trees (through the domain: test/medium/audience/conditions.test.ts). */
describe('the condition language', () => {
  const problems = (condition: unknown) => parseCondition(condition).violations;

  it.each([
    [
      'an unknown op',
      {
        all: [
          { metric: 'volume_usd', op: 'gte', value: 1 },
          { metric: 'volume_usd', op: 'lt', value: 9 },
          { metric: 'volume_usd', op: 'between', value: 1 },
        ],
      },
      'condition.all[2].op',
    ],
    ['an unknown metric', { any: [{ metric: 'volume', op: 'gt', value: 1 }] }, 'condition.any[0].metric'],
    ['a missing value', { metric: 'conversions', op: 'gt' }, 'condition.value'],
    ['a fraction of conversions', { metric: 'conversions', op: 'gt', value: 1.5 }, 'condition.value'],
    ['a non-decimal string', { metric: 'volume_usd', op: 'gt', value: '1e5' }, 'condition.value'],
    ['a number too big to be exact', { metric: 'referred_users', op: 'gt', value: 2 ** 60 }, 'condition.value'],
    ['79 digits', { metric: 'earnings', op: 'gt', value: '9'.repeat(79), currency_id: currency }, 'condition.value'],
    ['a list without in', { metric: 'volume_usd', op: 'eq', value: [1, 2] }, 'condition.value'],
    ['in without a list', { metric: 'volume_usd', op: 'in', value: 1 }, 'condition.value'],
    ['an empty in', { metric: 'volume_usd', op: 'in', value: [] }, 'condition.value'],
    ['a bad item of in', { metric: 'volume_usd', op: 'in', value: [1, 'x'] }, 'condition.value[1]'],
    ['earnings without a currency', { metric: 'earnings', op: 'gt', value: 1 }, 'condition.currency_id'],
    ['a currency on another metric', { metric: 'volume_usd', op: 'gt', value: 1, currency_id: currency }, 'condition.currency_id'],
    ['a conversion name on referrals', { metric: 'referred_users', op: 'gt', value: 1, conversion_name: 'swap' }, 'condition.conversion_name'],
    ['a zero window', { metric: 'volume_usd', op: 'gt', value: 1, window_days: 0 }, 'condition.window_days'],
    ['a fractional window', { metric: 'volume_usd', op: 'gt', value: 1, window_days: 1.5 }, 'condition.window_days'],
    ['a window on a trait', { metric: 'trait:x', op: 'eq', value: 1, window_days: 3 }, 'condition.window_days'],
    ['a trait without a name', { metric: 'trait:', op: 'eq', value: 1 }, 'condition.metric'],
    ['a trait name no trait can have (traits start with a letter)', { metric: 'trait:_balance', op: 'eq', value: 1 }, 'condition.metric'],
    ['a string ordered on a trait', { metric: 'trait:x', op: 'gt', value: 'a' }, 'condition.value'],
    ['an object as a trait value', { metric: 'trait:x', op: 'eq', value: { a: 1 } }, 'condition.value'],
    ['an unknown field', { metric: 'volume_usd', op: 'gt', value: 1, days: 3 }, 'condition.days'],
    ['an empty group', { all: [] }, 'condition.all'],
    ['a group that is no list', { any: { metric: 'volume_usd' } }, 'condition.any'],
    ['a field beside a group', { all: [{ metric: 'volume_usd', op: 'gt', value: 1 }], any: [] }, 'condition.any'],
    ['a scalar in a group', { all: [1] }, 'condition.all[0]'],
    ['an empty object', {}, 'condition.op'],
    ['event_count without an event name', { metric: 'event_count', op: 'gte', value: 3, window_days: 7 }, 'condition.event_name'],
    ['event_count with an empty event name', { metric: 'event_count', op: 'gte', value: 3, event_name: ' ' }, 'condition.event_name'],
    ['event_count with a name too long', { metric: 'event_count', op: 'gte', value: 3, event_name: 'e'.repeat(101) }, 'condition.event_name'],
    ['event_count with a fraction', { metric: 'event_count', op: 'gte', value: '2.5', event_name: 'swap' }, 'condition.value'],
    [
      'event_count with a conversion name',
      { metric: 'event_count', op: 'gte', value: 1, event_name: 'swap', conversion_name: 'swap' },
      'condition.conversion_name',
    ],
    [
      'event_count with a currency',
      { metric: 'event_count', op: 'gte', value: 1, event_name: 'swap', currency_id: currency },
      'condition.currency_id',
    ],
    ['an event name on another metric', { metric: 'conversions', op: 'gte', value: 1, event_name: 'swap' }, 'condition.event_name'],
    ['an event name on a trait', { metric: 'trait:x', op: 'eq', value: 1, event_name: 'swap' }, 'condition.event_name'],
    [
      'event_count over a window too long',
      { metric: 'event_count', op: 'gte', value: 1, event_name: 'swap', window_days: 3_651 },
      'condition.window_days',
    ],
  ])('refuses %s (%j), naming the path', (_case, condition, field) => {
    expect(problems(condition).map((violation) => violation.field)).toContain(field);
  });

  it('reads event_count(name, days) as a whole-number metric of one event name over an optional window', () => {
    expect(parseCondition({ metric: 'event_count', event_name: 'swap', window_days: 7, op: 'gte', value: '3' })).toEqual({
      violations: [],
      condition: {
        kind: 'metric',
        metric: 'event_count',
        op: 'gte',
        values: ['3'],
        windowDays: 7,
        conversionName: null,
        currencyId: null,
        eventName: 'swap',
      },
    });
    expect(parseCondition({ metric: 'event_count', event_name: 'swap', op: 'in', value: [0, 1] }).condition).toMatchObject({
      windowDays: null,
      values: ['0', '1'],
    });
    expect(parseCondition({ metric: 'volume_usd', op: 'gt', value: 1 }).condition).toMatchObject({ eventName: null });
  });

  it('lists every problem at once, each with its path', () => {
    const condition = {
      all: [
        { metric: 'nope', op: 'gt', value: 1 },
        { any: [{ metric: 'volume_usd', op: 'is', value: 1 }] },
        { metric: 'earnings', op: 'gt', value: 1 },
      ],
    };
    expect(problems(condition).map((violation) => violation.field)).toEqual([
      'condition.all[0].metric',
      'condition.all[1].any[0].op',
      'condition.all[2].currency_id',
    ]);
  });

  it(`bounds group nesting at ${CONDITION_LIMITS.maxGroupDepth} and comparisons at ${CONDITION_LIMITS.maxLeaves}`, () => {
    const leaf = { metric: 'volume_usd', op: 'gt', value: 1 };
    const nest = (levels: number): unknown => (levels === 0 ? leaf : { all: [nest(levels - 1)] });
    expect(problems(nest(CONDITION_LIMITS.maxGroupDepth))).toEqual([]);
    expect(problems(nest(CONDITION_LIMITS.maxGroupDepth + 1))).toEqual([
      { field: `condition${'.all[0]'.repeat(CONDITION_LIMITS.maxGroupDepth)}.all`, reason: expect.stringContaining('levels deep') },
    ]);
    const many = (n: number) => ({ any: [{ all: Array.from({ length: n - 1 }, () => leaf) }, leaf] });
    expect(problems(many(CONDITION_LIMITS.maxLeaves))).toEqual([]);
    expect(problems(many(CONDITION_LIMITS.maxLeaves + 1))).toEqual([{ field: 'condition', reason: expect.stringContaining('at most 50') }]);
  });

  describe('properties', () => {
    const leafArb = fc.oneof(
      fc.record({
        metric: fc.constantFrom(...METRICS.filter((metric) => metric !== 'earnings' && metric !== 'event_count')),
        op: fc.constantFrom('gt', 'gte', 'lt', 'lte', 'eq', 'neq'),
        value: fc.integer({ min: 0, max: 1_000_000 }),
      }),
      fc.record({
        metric: fc.constant('event_count'),
        op: fc.constantFrom('gte', 'lt'),
        value: fc.integer({ min: 0, max: 1_000 }),
        event_name: fc.constantFrom('swap', 'connect_wallet', 'Page view'),
        window_days: fc.integer({ min: 1, max: 3_650 }),
      }),
      fc.record({
        metric: fc.constant('earnings'),
        op: fc.constantFrom('gt', 'lte'),
        value: fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
        currency_id: fc.constant(currency),
      }),
      fc.record({
        metric: fc.stringMatching(/^trait:[a-z][a-z_]{0,19}$/),
        op: fc.constantFrom('eq', 'neq'),
        value: fc.oneof(fc.boolean(), fc.string({ maxLength: 20 }), fc.integer()),
      }),
    );
    const conditionArb = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', maxDepth: 4 },
        leafArb,
        fc.record({ all: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ any: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      ),
    })).node;

    it('accepts every well-formed condition within the bounds', () => {
      fc.assert(
        fc.property(conditionArb, (condition) => {
          const { violations } = parseCondition(condition);
          const leaves = JSON.stringify(condition).split('"metric"').length - 1;
          if (leaves <= CONDITION_LIMITS.maxLeaves) expect(violations).toEqual([]);
        }),
        { numRuns: 300 },
      );
    });

    it('names the exact path of one broken op anywhere in the tree', () => {
      fc.assert(
        fc.property(conditionArb, fc.nat(), (condition, pick) => {
          const paths: Array<{ path: string; leaf: Record<string, unknown> }> = [];
          const walk = (node: Record<string, unknown>, path: string) => {
            const list = (node.all ?? node.any) as Array<Record<string, unknown>> | undefined;
            if (list) list.forEach((child, index) => walk(child, `${path}.${'all' in node ? 'all' : 'any'}[${index}]`));
            else paths.push({ path, leaf: node });
          };
          const copy = structuredClone(condition) as Record<string, unknown>;
          walk(copy, 'condition');
          const target = paths[pick % paths.length]!;
          target.leaf.op = 'approximately';
          if (paths.length > CONDITION_LIMITS.maxLeaves) return;
          expect(parseCondition(copy).violations).toEqual([{ field: `${target.path}.op`, reason: expect.stringContaining('must be one of') }]);
        }),
        { numRuns: 300 },
      );
    });
  });
});
