import { capsDraftOf, capsOf, NO_CAPS_DRAFT } from '../../../web/src/admin/payouts/caps';

/** The terms editor's caps: typed in whole tokens (blank: none), sent as base units, problems named as the API names the fields. */
describe('the terms editor’s caps', () => {
  it('sends blank caps as none, and whole tokens as base units', () => {
    expect(capsOf(NO_CAPS_DRAFT, 6)).toEqual({ caps: { per_conversion: null, per_end_user: null, per_affiliate_window: null }, problems: {} });
    expect(capsOf({ perConversion: '1.5', perEndUser: '20', windowAmount: '0.000001', windowDays: '30' }, 6)).toEqual({
      caps: { per_conversion: '1500000', per_end_user: '20000000', per_affiliate_window: { amount: '1', days: 30 } },
      problems: {},
    });
  });

  it('names what is not a cap: 0, too many decimals, a window without its amount or days', () => {
    expect(capsOf({ ...NO_CAPS_DRAFT, perConversion: '0', perEndUser: '1.0000001' }, 6).problems).toEqual({
      'caps.per_conversion': expect.any(String),
      'caps.per_end_user': expect.any(String),
    });
    expect(Object.keys(capsOf({ ...NO_CAPS_DRAFT, windowDays: '7' }, 6).problems)).toEqual(['caps.per_affiliate_window.amount']);
    for (const windowDays of ['', '0', '366', '1.5']) {
      expect(Object.keys(capsOf({ ...NO_CAPS_DRAFT, windowAmount: '5', windowDays }, 6).problems)).toEqual(['caps.per_affiliate_window.days']);
    }
  });

  it('opens stored caps in whole tokens', () => {
    expect(capsDraftOf({ per_conversion: '1500000', per_end_user: null, per_affiliate_window: { amount: '2000000', days: 7 } }, 6)).toEqual({
      perConversion: '1.5',
      perEndUser: '',
      windowAmount: '2',
      windowDays: '7',
    });
    expect(capsDraftOf(undefined, 6)).toEqual(NO_CAPS_DRAFT);
  });
});
