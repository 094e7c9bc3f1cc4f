import { METRICS as SERVICE_METRICS, OPS as SERVICE_OPS, parseCondition } from '../../../services/audience/domain/condition';
import { EXAMPLE_CONDITION } from '../../../web/src/admin/audiences/condition';
import { newComparison, problemsAt, toBuilder, toCondition } from '../../../web/src/admin/audiences/condition-builder';
import { METRICS, OPS } from '../../../web/src/admin/audiences/condition-schema';

/**
 * The dashboard's visual condition builder: it offers what the audience service validates, turns
 * the JSON into its tree and back without changing what the condition means, and finds each of
 * the API's problems (named by path) at its own field.
 */
describe('the visual condition builder', () => {
  it('offers exactly the metrics and operators the audience service validates', () => {
    expect([...METRICS]).toEqual([...SERVICE_METRICS]);
    expect([...OPS]).toEqual([...SERVICE_OPS]);
  });

  it('turns a condition into its tree and back: figures as exact decimal strings, a trait’s values as what they read as', () => {
    const tree = toBuilder(EXAMPLE_CONDITION);
    expect(tree).toBeDefined();
    const back = toCondition(tree!);
    expect(back).toEqual({
      all: [
        { metric: 'volume_usd', op: 'gte', value: '1000', window_days: 30 },
        {
          any: [
            { metric: 'referred_users', op: 'gt', value: '5' },
            { metric: 'trait:country', op: 'in', value: ['US', 'DE'] },
          ],
        },
      ],
    });
    // What it builds, the service takes.
    expect(parseCondition(back).violations).toEqual([]);
    const trait = { ...newComparison(), metric: 'trait', traitName: 'vip', op: 'eq', value: 'true' };
    expect(toCondition({ type: 'group', join: 'any', children: [trait, { ...trait, op: 'gt', value: '2.5' }] })).toEqual({
      any: [
        { metric: 'trait:vip', op: 'eq', value: true },
        { metric: 'trait:vip', op: 'gt', value: 2.5 },
      ],
    });
  });

  it('wraps a bare comparison in a group, and leaves to the JSON view what it cannot show', () => {
    expect(toCondition(toBuilder({ metric: 'earnings', op: 'gte', value: '10', currency_id: 'c1' })!)).toEqual({
      all: [{ metric: 'earnings', op: 'gte', value: '10', currency_id: 'c1' }],
    });
    expect(toBuilder(null)).toBeNull();
    expect(toBuilder({ all: [{ metric: 'volume_usd', op: 'gte', value: 1, colour: 'red' }] })).toBeUndefined();
    expect(toBuilder({ all: [{ metric: 'volume_usd', op: 'bigger', value: 1 }] })).toBeUndefined();
    expect(toBuilder({ all: [{ metric: 'volume_usd', op: 'gte', value: { amount: 1 } }] })).toBeUndefined();
  });

  it('sends days that are no whole number as typed, for the API to name at the field', () => {
    expect(toCondition({ ...newComparison(), value: '1', windowDays: 'a week' })).toMatchObject({ window_days: 'a week' });
    expect(toCondition({ ...newComparison(), value: '1', windowDays: '7' })).toMatchObject({ window_days: 7 });
  });

  it('finds each problem the API names at its own field, not at its parent’s', () => {
    const errors = {
      condition: 'holds 51 comparisons',
      'condition.all[0].value[1]': 'must be a decimal number',
      'condition.all[0].op': 'must be one of gt, gte',
      'condition.all[1].any': 'must be a non-empty array of conditions',
    };
    expect(problemsAt(errors, 'condition.all[0]')).toEqual({ value: 'must be a decimal number', op: 'must be one of gt, gte' });
    expect(problemsAt(errors, 'condition.all[1]')).toEqual({ any: 'must be a non-empty array of conditions' });
    expect(problemsAt(errors, 'condition')['']).toBe('holds 51 comparisons');
    expect(problemsAt(errors, 'condition').op).toBeUndefined();
  });
});
