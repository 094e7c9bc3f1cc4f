import { draftOf, parseTokenAmount, rewardOf } from '../../../web/src/admin/payouts/reward';
import { tokenAmount } from '../../../web/src/ui/format';

/**
 * The payout terms editor's money: whole tokens typed by an admin become exact base units (digit
 * arithmetic, no float), and stored base units read back as the same whole tokens.
 */
describe('whole tokens <-> base units in the payout terms editor', () => {
  it.each([
    ['1.5', 6, '1500000'],
    ['0.000001', 6, '1'],
    ['.5', 6, '500000'],
    ['7.', 6, '7000000'],
    ['0', 18, '0'],
    ['007', 0, '7'],
    // Past what a float holds exactly: 2^53 + 1 tokens of 18 decimals.
    ['9007199254740993.000000000000000001', 18, '9007199254740993000000000000000001'],
  ])('reads %s with %i decimals as %s base units, and back', (text, decimals, baseUnits) => {
    expect(parseTokenAmount(text, decimals)).toEqual({ baseUnits });
    expect(parseTokenAmount(tokenAmount(baseUnits, decimals), decimals)).toEqual({ baseUnits });
  });

  it.each([
    ['1.2345678', 6, 'At most 6 digits after the decimal point.'],
    ['1.5', 0, 'This currency has no decimals: enter a whole number.'],
    ['', 6, 'Enter an amount such as 1.5 (digits, one decimal point).'],
    ['.', 6, 'Enter an amount such as 1.5 (digits, one decimal point).'],
    ['1,5', 6, 'Enter an amount such as 1.5 (digits, one decimal point).'],
    ['-1', 6, 'Enter an amount such as 1.5 (digits, one decimal point).'],
    ['1e6', 6, 'Enter an amount such as 1.5 (digits, one decimal point).'],
  ])('refuses %s with %i decimals in plain words', (text, decimals, error) => {
    expect(parseTokenAmount(text, decimals)).toEqual({ error });
  });

  it('turns drafts into the rewards the API takes, and stored rewards into drafts', () => {
    expect(rewardOf({ kind: 'fixed', amount: '2.25', bps: '' }, 6)).toEqual({ reward: { fixed: '2250000' } });
    expect(rewardOf({ kind: 'bps', amount: '', bps: '250' }, 6)).toEqual({ reward: { bps: 250 } });
    expect(rewardOf({ kind: 'none', amount: '1', bps: '1' }, 6)).toEqual({ reward: null });
    expect(rewardOf({ kind: 'bps', amount: '', bps: '10001' }, 6)).toEqual({ error: expect.stringContaining('0 to 10,000') });
    expect(rewardOf({ kind: 'bps', amount: '', bps: '2.5' }, 6)).toEqual({ error: expect.stringContaining('0 to 10,000') });
    expect(draftOf({ fixed: '2250000' }, 6)).toEqual({ kind: 'fixed', amount: '2.25', bps: '' });
    expect(draftOf({ bps: 250 }, 6)).toEqual({ kind: 'bps', amount: '', bps: '250' });
    expect(draftOf(null, 6)).toEqual({ kind: 'none', amount: '', bps: '' });
  });
});
