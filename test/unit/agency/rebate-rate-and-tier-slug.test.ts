import { bpsToRebateRate, rebateRateToBps } from '../../../services/rules/rebate-rate';
import { tierSlug } from '../../../services/rules/tier-slug';

describe('a user rebate rate as the @fuul/sdk sends it', () => {
  it.each([
    [0, 0],
    [0.01, 100],
    [0.05, 500],
    [0.07, 700],
    [0.1, 1_000],
    [0.29 - 0.1, 1_900],
    [0.2, 2_000],
  ])('reads %p as %p basis points', (rate, bps) => {
    expect(rebateRateToBps(rate)).toBe(bps);
  });

  it.each([0.21, -0.01, 0.005, 0.055, 0.199, 1, Number.NaN, Number.POSITIVE_INFINITY, 1e-7])('refuses %p', (rate) => {
    expect(rebateRateToBps(rate)).toBeUndefined();
  });

  it('writes basis points back as the same number the SDK sent (the signed message names it)', () => {
    for (let steps = 0; steps <= 20; steps++) {
      const rate = Number((steps / 100).toFixed(2));
      expect(String(bpsToRebateRate(rebateRateToBps(rate)!))).toBe(String(rate));
    }
    expect(bpsToRebateRate(null)).toBeNull();
  });
});

describe('a tier’s slug', () => {
  it.each([
    ['Gold', 'gold'],
    ['Gold Tier', 'gold-tier'],
    ['  VIP -- Tier 2!  ', 'vip-tier-2'],
    ['Überfan #1', 'berfan-1'],
  ])('%p is %p', (name, slug) => {
    expect(tierSlug(name)).toBe(slug);
  });
});
