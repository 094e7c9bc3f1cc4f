import { describePeriod, lastDays, periodFromUrl, rangeProblems } from '../../../web/src/admin/home/period';
import { sectionCounts } from '../../../web/src/admin/home/queues';
import { documentTitle, screenTitle } from '../../../web/src/admin/page-title';

/** The admin home's period, the navigation's counts and the tab titles. */
describe('the admin home and titles', () => {
  const now = new Date('2026-03-02T23:59:00Z');

  it('reads the period from the URL: a preset, a typed range, else the last 30 days', () => {
    expect(periodFromUrl(new URLSearchParams('days=7'), now)).toEqual({ from: '2026-02-24', to: '2026-03-02', days: 7 });
    expect(periodFromUrl(new URLSearchParams('from=2026-01-01&to=2026-01-31'), now)).toEqual({ from: '2026-01-01', to: '2026-01-31', days: null });
    for (const search of ['days=8', 'from=2026-02-30&to=2026-03-01', 'from=2026-03-01&to=2026-02-01', 'from=2024-01-01&to=2026-01-01', '']) {
      expect(periodFromUrl(new URLSearchParams(search), now)).toEqual(lastDays(30, now));
    }
    expect(lastDays(30, now)).toEqual({ from: '2026-02-01', to: '2026-03-02', days: 30 });
    expect(describePeriod(lastDays(90, now))).toBe('the last 90 days');
    expect(describePeriod({ from: '2026-01-01', to: '2026-01-31', days: null })).toBe('2026-01-01 to 2026-01-31');
  });

  it('says what is wrong with a typed range', () => {
    expect(rangeProblems('2026-01-01', '2026-01-01')).toEqual({});
    expect(rangeProblems('2026-1-1', '')).toEqual({ from: 'Enter the first day as YYYY-MM-DD.', to: 'Enter the last day as YYYY-MM-DD.' });
    expect(rangeProblems('2026-01-02', '2026-01-01')).toEqual({ to: 'The last day comes before the first: swap them.' });
    expect(rangeProblems('2024-01-01', '2024-12-31')).toEqual({});
    expect(rangeProblems('2024-01-01', '2025-01-01').to).toMatch(/at most 366 days/);
  });

  it('counts a queue on its section only when something waits', () => {
    expect(sectionCounts(undefined)).toEqual({});
    expect(sectionCounts({ applications_pending: 3, tax_forms_to_review: 0, conversions_in_review: 1, failing_webhooks: 0 })).toEqual({
      applications: 3,
      review: 1,
    });
  });

  it('names every screen in the tab title, with the project once its name is known', () => {
    expect(
      [
        'home',
        'audiences/new',
        'affiliates/evm_address/0xabc',
        'payouts',
        'payouts/terms/edit/trade',
        'tax/records/evm_address/0x1',
        'review',
        'nowhere',
      ].map(screenTitle),
    ).toEqual(['Home', 'New audience', 'Affiliate', 'Currencies', 'Edit payout terms', 'Tax record', 'Review queue', 'Page not found']);
    expect(documentTitle('Home', 'Acme')).toBe('Home · Acme · Referral admin');
    expect(documentTitle('Sign in', undefined)).toBe('Sign in · Referral admin');
  });
});
