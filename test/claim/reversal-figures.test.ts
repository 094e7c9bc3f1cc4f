import { randomUUID } from 'node:crypto';
import { conversionBody, createCurrency, evmUser, putTerms, sendAttributedConversions } from './claim-fixtures';
import { newNamedAffiliate, useStackWithProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { type ReceivedDelivery, verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * A reversal reaches every figure of the conversion over HTTP, on the real stack: reversing a share
 * of an attributed conversion (POST /api/v1/conversions/:id/reverse) takes the same share of its
 * volume, revenue and payouts out of the affiliate's list and detail figures and its master's referred
 * volume and agency earnings; a full reversal takes it out of the conversion counts; each reversal is
 * announced once to the webhooks subscribed to conversion.reversed, a replayed one not again.
 */
describe('conversion reversals in the affiliate figures and webhooks (HTTP)', () => {
  const { stack, project } = useStackWithProject();
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const admin = () => ({ key: project.keys.admin });

  const newAffiliate = (name: string) => newNamedAffiliate(stack, project, name);

  const detail = async (identifier: string) => {
    const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${identifier}`, admin());
    expect(response.status).toBe(200);
    return response.body as {
      volume_usd: string;
      revenue_usd: string;
      conversions: number;
      referred_volume_usd: string;
      earnings: Array<{ amount: string }>;
      agency_earnings: Array<{ amount: string }>;
    };
  };
  const listed = async (id: string) =>
    (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=100`, admin())).body.results.find(
      (item: { id: string }) => item.id === id,
    ) as { volume_usd: string; revenue_usd: string; conversions: number };

  const reverse = (conversionId: string, body: Record<string, unknown>) =>
    stack.api.post(`/api/v1/conversions/${encodeURIComponent(conversionId)}/reverse`, { key: project.keys.service, body });

  it('takes each reversal’s share out of the affiliate’s and its master’s figures, and announces it once as conversion.reversed', async () => {
    const path = `/reversed-${randomUUID()}`;
    const subscribed = await stack.api.post(`/api/v1/projects/${project.id}/webhooks`, {
      ...admin(),
      body: { url: receiver.url(path), events: ['conversion.reversed'] },
    });
    expect(subscribed.status).toBe(201);
    const secret = subscribed.body.secret as string;

    const usdc = await createCurrency(stack, project, { name: 'USDC' });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    const [master, sub] = [await newAffiliate('Master'), await newAffiliate('Sub')];
    expect(
      (await stack.api.post(`/api/v1/projects/${project.id}/agencies`, { ...admin(), body: { user_identifier: master.identifier, spread_bps: 500 } }))
        .status,
    ).toBe(201);
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/agencies/${master.id}/sub-affiliates`, {
          ...admin(),
          body: { user_identifiers: [sub.identifier] },
        })
      ).status,
    ).toBe(200);

    const [first, second] = [
      conversionBody({ user: evmUser(), referral_code: sub.code, volume_usd: '200', revenue_usd: '20', reward_base: '10000' }),
      conversionBody({ user: evmUser(), referral_code: sub.code, volume_usd: '50', revenue_usd: '5', reward_base: '10000' }),
    ];
    await sendAttributedConversions(stack, project, [first, second]);
    expect(await detail(sub.identifier)).toMatchObject({ volume_usd: '250', revenue_usd: '25', conversions: 2, earnings: [{ amount: '2000' }] });
    expect(await detail(master.identifier)).toMatchObject({ referred_volume_usd: '250', agency_earnings: [{ amount: '1000' }] });

    // A quarter of the first: 50 of volume, 5 of revenue, 250 of the affiliate's 1000, 125 of the master's 500.
    const partial = { reversal_id: `refund-${randomUUID()}`, reason: 'partial refund', share_bps: 2_500 };
    expect((await reverse(first.id, partial)).status).toBe(201);
    const afterPartial = await pollUntil(
      async () => {
        const figures = await detail(sub.identifier);
        return figures.volume_usd === '200' ? figures : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the affiliate metrics to take the partial reversal' },
    );
    expect(afterPartial).toMatchObject({ volume_usd: '200', revenue_usd: '20', conversions: 2, earnings: [{ amount: '1750' }] });
    expect(await listed(sub.id)).toMatchObject({ volume_usd: '200', revenue_usd: '20', conversions: 2 });
    expect(await detail(master.identifier)).toMatchObject({ referred_volume_usd: '200', agency_earnings: [{ amount: '875' }] });

    // The same reversal again: 200, nothing taken or announced twice. The rest of it: no longer a conversion.
    expect((await reverse(first.id, partial)).status).toBe(200);
    expect((await reverse(first.id, { reversal_id: `refund-${randomUUID()}`, reason: 'the rest' })).status).toBe(409);
    expect((await reverse(first.id, { reversal_id: `refund-${randomUUID()}`, reason: 'the rest', share_bps: 7_500 })).status).toBe(201);
    const afterFull = await pollUntil(
      async () => {
        const figures = await detail(sub.identifier);
        return figures.conversions === 1 ? figures : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the affiliate metrics to take the full reversal' },
    );
    expect(afterFull).toMatchObject({ volume_usd: '50', revenue_usd: '5', earnings: [{ amount: '1000' }] });
    expect(await listed(sub.id)).toMatchObject({ volume_usd: '50', revenue_usd: '5', conversions: 1 });
    expect(await detail(master.identifier)).toMatchObject({ referred_volume_usd: '50', agency_earnings: [{ amount: '500' }] });

    // A rebuild from the claim service (ListPaidConversions: its paid conversions with their reversals) gives the same
    // figures, also when the projection lost its facts and reversals.
    const rebuild = async () => {
      const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/metrics/rebuild`, admin());
      expect(response.status).toBe(200);
      return response.body as { restored: number; restored_reversals: number };
    };
    expect(await rebuild()).toMatchObject({ restored: 0, restored_reversals: 0 });
    expect(await detail(sub.identifier)).toMatchObject({ volume_usd: '50', revenue_usd: '5', conversions: 1, earnings: [{ amount: '1000' }] });
    await stack.db.query('DELETE FROM agency.conversion_fact_reversals WHERE project_id = $1', [project.id]);
    await stack.db.query('DELETE FROM agency.conversion_facts WHERE project_id = $1', [project.id]);
    expect(await rebuild()).toMatchObject({ restored: 2, restored_reversals: 2 });
    expect(await detail(sub.identifier)).toMatchObject({ volume_usd: '50', revenue_usd: '5', conversions: 1, earnings: [{ amount: '1000' }] });
    expect(await detail(master.identifier)).toMatchObject({ referred_volume_usd: '50', agency_earnings: [{ amount: '500' }] });

    // Two reversals, two signed deliveries, with the documented data.
    const requests = await pollUntil(
      async () => {
        const received = receiver.at(path);
        return received.length >= 2 ? received : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'two conversion.reversed deliveries' },
    );
    expect(requests).toHaveLength(2);
    const byShare = (request: ReceivedDelivery) => request.json.data.share_bps as number;
    const [quarter, rest] = [...requests].sort((a, b) => byShare(a) - byShare(b));
    for (const request of requests) expect(verifyStandardWebhook(secret, request.headers, request.body)).toBe(true);
    expect(quarter!.json).toMatchObject({
      type: 'conversion.reversed',
      data: {
        conversion_id: first.id,
        reversal_id: partial.reversal_id,
        share_bps: 2_500,
        reason: 'partial refund',
        affiliate: { id: sub.id },
        master: { id: master.id },
        volume_usd: '50',
        revenue_usd: '5',
        currency_id: usdc.id,
      },
    });
    expect(quarter!.json.data.reversals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'affiliate_payout', amount: '250', was: 'available' }),
        expect.objectContaining({ kind: 'agency_payout', amount: '125', was: 'available' }),
      ]),
    );
    expect(rest!.json.data).toMatchObject({ share_bps: 7_500, volume_usd: '150', revenue_usd: '15' });
  });
});
