import { useStackWithProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { useServiceClients } from '../helpers/rpc';
import { conversionBody, createCurrency, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * The review rules on the payment path over HTTP against the whole stack: a rule set through the
 * settings, a conversion that breaks it waits for review and is listed in the project's review queue,
 * an admin's approval makes its movements available and decides the queue's row; a flagged
 * affiliate's payouts wait for review (the agency's affiliate_flagged carried by the claim service's
 * attribution client) while its referred user's are paid, until its unflag (the agency's status event,
 * consumed by the claim service) releases them. The many cases are in
 * test/medium/claim/review-wiring.test.ts.
 */
describe('the review queue on the payment path (HTTP)', () => {
  const { stack, project } = useStackWithProject();
  const clients = useServiceClients(stack);

  it('queues a conversion that breaks a rule, its movements waiting for review, and an approval pays them', async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 100 } });
    const settings = await stack.api.patch(`/api/v1/projects/${project.id}/review-settings`, {
      key: project.keys.admin,
      body: { max_reward_per_conversion: '500' },
    });
    expect(settings.status).toBe(200);

    // 1% of 100,000 is 1,000: above the limit. 1% of 50,000 is 500: at it, paid at once.
    const above = conversionBody({ reward_base: '100000' });
    const atLimit = conversionBody({ reward_base: '50000' });
    for (const body of [above, atLimit]) expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
    expect((await settled(stack, project, above.id)).movements).toEqual([
      expect.objectContaining({ kind: 'end_user_payout', amount: '1000', status: 'pending', pending_reason: 'review' }),
    ]);
    expect((await settled(stack, project, atLimit.id)).movements).toEqual([
      expect.objectContaining({ kind: 'end_user_payout', amount: '500', status: 'available', pending_reason: null }),
    ]);

    const queue = () => stack.api.get(`/api/v1/projects/${project.id}/review`, { key: project.keys.admin });
    expect((await queue()).body).toMatchObject({
      results: [
        {
          conversion_id: above.id,
          user_identifier: above.user.identifier,
          rules: [{ rule: 'max_reward_per_conversion', limit: '500', actual: '1000' }],
          status: 'open',
          decision: null,
        },
      ],
      total_results: 1,
    });

    const approved = await stack.api.post(`/api/v1/projects/${project.id}/movements/approve`, {
      key: project.keys.admin,
      body: { conversion_ids: [above.id] },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.results).toEqual([
      {
        conversion_id: above.id,
        outcome: 'approved',
        movements: [expect.objectContaining({ kind: 'end_user_payout', status: 'available', pending_reason: null })],
      },
    ]);
    expect((await queue()).body.results).toEqual([expect.objectContaining({ conversion_id: above.id, status: 'decided', decision: 'approved' })]);
    const conversion = await stack.api.get(`/api/v1/conversions/${above.id}`, { key: project.keys.readOnly });
    expect(conversion.body.movements).toEqual([expect.objectContaining({ status: 'available', pending_reason: null })]);
  });

  it("makes a flagged affiliate's payouts wait for review while the referred user's are paid, and releases them when it is unflagged", async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'flagged-trade', { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
    await stack.api.patch(`/api/v1/projects/${project.id}/review-settings`, { key: project.keys.admin, body: { max_reward_per_conversion: null } });
    const { affiliate, user } = await referredUser(clients, project);
    const flagged = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}/flag`, {
      key: project.keys.admin,
      body: { reason: 'many wallets, one IP' },
    });
    expect(flagged.status).toBe(200);
    const body = conversionBody({
      name: 'flagged-trade',
      user: { identifier: user.identifier, identifier_type: 'evm_address' },
      reward_base: '10000',
    });
    expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
    const { movements } = (await settled(stack, project, body.id)) as { movements: Array<{ kind: string }> };
    expect([...movements].sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', amount: '1000', status: 'pending', pending_reason: 'review' }),
      expect.objectContaining({ kind: 'end_user_payout', amount: '100', status: 'available', pending_reason: null }),
    ]);

    // Unflagged: the agency's status event reaches the claim service, which releases the affiliate's payout (no hold: available).
    const unflagged = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}/unflag`, { key: project.keys.admin });
    expect(unflagged.status).toBe(200);
    const released = await pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.readOnly });
        const movement = (response.body.movements as Array<{ kind: string; status: string }>).find((item) => item.kind === 'affiliate_payout');
        return movement?.status === 'available' ? movement : undefined;
      },
      { timeoutMs: 15_000, what: "the unflag to release the affiliate's payout" },
    );
    expect(released).toMatchObject({ amount: '1000', pending_reason: null, payout_status: 'open' });
  });
});
