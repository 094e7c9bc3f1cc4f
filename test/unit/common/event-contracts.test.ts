import { EVENT_PAYLOADS } from '../../../services/platform/events/contracts';
import { MAX_AMOUNT } from '../../../services/rules/money';

/**
 * An event's payout is one amount a voucher can carry: the consumers keep single amounts in
 * NUMERIC(78,0), so a larger one must be unreadable (set aside once) rather than fail its insert on
 * every redelivery. Pure: the contract alone.
 */
describe('the contract of claim.conversion.processed', () => {
  const user = { identifier: '0x00000000000000000000000000000000000000a1', identifier_type: 'evm_address' };
  const processed = (amount: string) => ({
    conversion_id: 'c1',
    name: 'trade',
    status: 'processed',
    occurred_at: '2026-11-28T00:00:00.000Z',
    user,
    affiliate: null,
    master: null,
    tier_id: null,
    volume_usd: '10',
    revenue_usd: '1',
    currency_id: '00000000-0000-4000-8000-000000000001',
    payouts: [{ kind: 'end_user_payout', user, amount }],
  });
  const contract = EVENT_PAYLOADS['claim.conversion.processed'];

  it('reads a payout of 2^256 − 1', () => {
    expect(contract.safeParse(processed(MAX_AMOUNT.toString())).success).toBe(true);
  });

  it.each([(MAX_AMOUNT + 1n).toString(), '9'.repeat(79), '0', '-5', '1.5'])('refuses a payout of %s', (amount) => {
    expect(contract.safeParse(processed(amount)).success).toBe(false);
  });
});
