import { boardChoice, rangeProblems, typedUsers, userTypeOf, utcDay } from '../../../web/src/admin/payouts/leaderboards/boards';
import { formatOrdinal } from '../../../web/src/ui/format';

/** The leaderboards page's URL and form rules, and the portal's rank in words. */
describe('the leaderboards in the web apps', () => {
  it('reads the board and the user type from the URL, the payouts board and affiliates when they name none', () => {
    expect(boardChoice('revenue')).toMatchObject({ kind: 'revenue', currency: false, userTypes: true, dates: false });
    expect(boardChoice('referred-users')).toMatchObject({ userTypes: false });
    expect(boardChoice(null)).toMatchObject({ kind: 'payouts', currency: true, dates: true });
    expect(boardChoice('points')).toMatchObject({ kind: 'payouts' });
    expect([userTypeOf('end_user'), userTypeOf('agency'), userTypeOf(null)]).toEqual(['end_user', 'affiliate', 'affiliate']);
  });

  it('takes only real UTC days, YYYY-MM-DD', () => {
    expect(utcDay('2026-11-21')).toBe('2026-11-21');
    expect(utcDay('2024-02-29')).toBe('2024-02-29');
    for (const bad of ['2026-02-30', '2026-13-01', '21/11/2026', '2026-11-21T00:00:00Z', '', null]) expect(utcDay(bad)).toBeUndefined();
  });

  it('says what is wrong with a typed range at its field; either end may be empty', () => {
    expect(rangeProblems('', '')).toEqual({});
    expect(rangeProblems('2026-11-21', '')).toEqual({});
    expect(rangeProblems('2026-11-21', '2026-11-21')).toEqual({});
    expect(rangeProblems('2026-11-22', '2026-11-21')).toEqual({ to: 'The last day comes before the first: swap them.' });
    expect(rangeProblems('yesterday', '2026-02-30')).toEqual({
      from: 'Enter a day as YYYY-MM-DD, or leave it empty to start at the first payout.',
      to: 'Enter a day as YYYY-MM-DD, or leave it empty to end today.',
    });
  });

  it('splits the users typed for referred volume on commas, spaces and lines, each once', () => {
    expect(typedUsers(' 0xa,0xb\n0xa  0xc,,\n')).toEqual(['0xa', '0xb', '0xc']);
    expect(typedUsers(' \n, ')).toEqual([]);
  });

  it('writes a rank as an ordinal', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 1002].map(formatOrdinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
      '111th',
      '1,002nd',
    ]);
  });
});
