import { capAmount, capInOrder, hasCaps, NO_CAPS, type PayoutCaps, totalKey, windowDays } from '../../../services/claim/domain/caps';

const caps = (fields: Partial<PayoutCaps>): PayoutCaps => ({ ...NO_CAPS, ...fields });
const wallet = { identifier: '0x00000000000000000000000000000000000000aa', identifierType: 'evm_address' as const };

/** The cap arithmetic (the ledger applies it in the payment's transaction: test/medium/claim/caps.test.ts). */
describe('payout caps arithmetic', () => {
  it('cuts a movement to the per-conversion cap, whatever its kind', () => {
    const perConversion = caps({ perConversion: 100n });
    for (const kind of ['end_user_payout', 'affiliate_payout', 'agency_payout'] as const) {
      expect(capAmount(250n, kind, perConversion, 0n)).toEqual({ amount: 100n, capped: 150n, cappedBy: 'per_conversion' });
      expect(capAmount(100n, kind, perConversion, 0n)).toEqual({ amount: 100n, capped: 0n, cappedBy: null });
    }
  });

  it('cuts an end user’s movement to what its lifetime cap leaves, and only the end user’s', () => {
    const perEndUser = caps({ perEndUser: 1_000n });
    expect(capAmount(300n, 'end_user_payout', perEndUser, 800n)).toEqual({ amount: 200n, capped: 100n, cappedBy: 'per_end_user' });
    expect(capAmount(300n, 'end_user_payout', perEndUser, 1_000n)).toEqual({ amount: 0n, capped: 300n, cappedBy: 'per_end_user' });
    // Earned past the cap (a cap lowered later): nothing left, never negative.
    expect(capAmount(300n, 'end_user_payout', perEndUser, 5_000n)).toEqual({ amount: 0n, capped: 300n, cappedBy: 'per_end_user' });
    expect(capAmount(300n, 'affiliate_payout', perEndUser, 5_000n)).toEqual({ amount: 300n, capped: 0n, cappedBy: null });
    expect(capAmount(300n, 'agency_payout', perEndUser, 5_000n)).toEqual({ amount: 300n, capped: 0n, cappedBy: null });
  });

  it('cuts an affiliate’s movement to what its window leaves, and only the affiliate’s', () => {
    const window = caps({ perAffiliateWindow: { amount: 500n, days: 7 } });
    expect(capAmount(300n, 'affiliate_payout', window, 400n)).toEqual({ amount: 100n, capped: 200n, cappedBy: 'per_affiliate_window' });
    expect(capAmount(300n, 'end_user_payout', window, 400n)).toEqual({ amount: 300n, capped: 0n, cappedBy: null });
    expect(capAmount(300n, 'agency_payout', window, 400n)).toEqual({ amount: 300n, capped: 0n, cappedBy: null });
  });

  it('names the first cap that cut: per conversion before the running total, the running total when only it cut', () => {
    const both = caps({ perConversion: 200n, perEndUser: 1_000n });
    // Both cut: per_conversion first (500 -> 200), then the lifetime (200 -> 50).
    expect(capAmount(500n, 'end_user_payout', both, 950n)).toEqual({ amount: 50n, capped: 450n, cappedBy: 'per_conversion' });
    // Only the lifetime cuts.
    expect(capAmount(150n, 'end_user_payout', both, 950n)).toEqual({ amount: 50n, capped: 100n, cappedBy: 'per_end_user' });
  });

  it('caps a batch cumulatively, in the order given, from each total’s prior', () => {
    const perEndUser = caps({ perEndUser: 1_000n });
    const a = totalKey('trade', perEndUser, 'end_user_payout', wallet);
    const b = totalKey('trade', perEndUser, 'end_user_payout', { ...wallet, identifier: '0x00000000000000000000000000000000000000bb' });
    const item = (key: string | null, amount: bigint) => ({ amount, kind: 'end_user_payout' as const, caps: perEndUser, key });
    const results = capInOrder([item(a, 400n), item(b, 400n), item(a, 400n), item(a, 400n), item(b, 400n)], new Map([[a!, 300n]]));
    expect(results.map((result) => [result.amount, result.capped])).toEqual([
      [400n, 0n],
      [400n, 0n],
      [300n, 100n],
      [0n, 400n],
      [400n, 0n],
    ]);
  });

  it('keys running totals by terms, kind and beneficiary, and keeps none for a per-conversion cap', () => {
    const all = caps({ perConversion: 1n, perEndUser: 1n, perAffiliateWindow: { amount: 1n, days: 30 } });
    const endUser = totalKey('trade', all, 'end_user_payout', wallet);
    const affiliate = totalKey('trade', all, 'affiliate_payout', wallet);
    expect(endUser).not.toBeNull();
    expect(affiliate).not.toBeNull();
    expect(new Set([endUser, affiliate, totalKey('swap', all, 'end_user_payout', wallet)]).size).toBe(3);
    expect(totalKey('trade', all, 'agency_payout', wallet)).toBeNull();
    expect(totalKey('trade', caps({ perConversion: 1n }), 'end_user_payout', wallet)).toBeNull();
    expect(windowDays(all, 'affiliate_payout')).toBe(30);
    expect(windowDays(all, 'end_user_payout')).toBeNull();
  });

  it('says whether terms have caps at all', () => {
    expect(hasCaps(NO_CAPS)).toBe(false);
    expect(hasCaps(caps({ perConversion: 1n }))).toBe(true);
    expect(hasCaps(caps({ perAffiliateWindow: { amount: 1n, days: 1 } }))).toBe(true);
  });
});
