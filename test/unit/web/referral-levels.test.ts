import { nestReferralTree, type ReferralTreeNode } from '../../../web/src/admin/affiliates/referral-tree';
import { describeLevels, levelDraftsOf, NO_REWARD } from '../../../web/src/admin/payouts/reward';

const USDC = { name: 'USDC', decimals: 6 };

function node(affiliate_id: string, parent_affiliate_id: string, level: number): ReferralTreeNode {
  return {
    affiliate_id,
    parent_affiliate_id,
    level,
    identifier: `0x${affiliate_id.padStart(40, '0')}`,
    identifier_type: 'evm_address',
    volume_usd: '0',
    revenue_usd: '0',
    converting_users: 0,
    end_users: 0,
  };
}

/** A nested tree as ids, to compare shapes. */
const shape = (nodes: ReturnType<typeof nestReferralTree>): unknown[] =>
  nodes.map(({ node: { affiliate_id }, children }) => (children.length === 0 ? affiliate_id : { [affiliate_id]: shape(children) }));

describe('the admin detail’s downline, nested', () => {
  it('puts each node under the affiliate that referred it, keeping the API’s order (by level, highest volume first)', () => {
    const nodes = [
      node('a', 'root', 1),
      node('b', 'root', 1),
      node('c', 'b', 2),
      node('d', 'a', 2),
      node('e', 'b', 2),
      node('f', 'c', 3),
      node('g', 'f', 4),
    ];
    expect(shape(nestReferralTree(nodes))).toEqual([{ a: ['d'] }, { b: [{ c: [{ f: ['g'] }] }, 'e'] }]);
  });

  it('keeps a node whose parent the truncated list left out, at the top', () => {
    expect(shape(nestReferralTree([node('a', 'root', 1), node('x', 'not-listed', 2), node('y', 'x', 3)]))).toEqual(['a', { x: ['y'] }]);
  });

  it('answers nothing for no downline', () => {
    expect(nestReferralTree([])).toEqual([]);
  });
});

describe('the payout terms’ referral levels', () => {
  it('describes the levels that pay, in order, in the terms’ currency', () => {
    expect(describeLevels({ affiliate2: { bps: 100 }, affiliate3: null, affiliate4: { fixed: '500000' } }, USDC)).toBe(
      'level 2: 1 % of reward_base (100 bps); level 4: 0.5 USDC each',
    );
    expect(describeLevels({ affiliate3: { fixed: '1500000' } }, undefined)).toBe(
      'level 3: 1,500,000 smallest units of a currency not known yet each',
    );
    expect(describeLevels({ affiliate2: null }, USDC)).toBe('');
    expect(describeLevels({}, USDC)).toBe('');
  });

  it('reads stored levels back as drafts in whole tokens; absent levels are Nothing', () => {
    expect(levelDraftsOf({ affiliate2: { fixed: '2500000' }, affiliate4: { bps: 50 } }, 6)).toEqual({
      2: { kind: 'fixed', amount: '2.5', bps: '' },
      3: NO_REWARD,
      4: { kind: 'bps', amount: '', bps: '50' },
    });
    expect(levelDraftsOf(undefined, 6)).toEqual({ 2: NO_REWARD, 3: NO_REWARD, 4: NO_REWARD });
  });
});
