import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../../services/agency/database';
import { openDatabase } from '../../services/platform/db/database';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { createSegment, randomEvmAddress, useStackWithProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { connectWallet, insertTrackingBatch, pageview } from '../helpers/tracking-batches';

/**
 * Tracking over HTTP: the attribution settings of the program settings, and the events list, where each
 * event says what it did once the agency's job has processed its batch (batches are stored by a test
 * helper, as POST /api/v1/events stores them).
 */
describe('attribution settings and the tracking events list (HTTP)', () => {
  const { stack, project } = useStackWithProject();
  let agencyDb: { db: Kysely<AgencyDatabase>; close(): Promise<void> };
  beforeAll(() => {
    agencyDb = openDatabase<AgencyDatabase>({
      url: stack.databaseUrl,
      schema: SERVICE_CATALOG.agency.schema,
      poolMax: 2,
      applicationName: 'test-http',
      logger: stack.logs.logger('db'),
    });
  });
  afterAll(() => agencyDb.close());

  const settingsPath = () => `/api/v1/projects/${project.id}/program-settings`;
  const eventsPath = (query = '') => `/api/v1/projects/${project.id}/events${query}`;

  it('reads and changes the attribution window and model, refusing values out of range without changing anything', async () => {
    expect((await stack.api.get(settingsPath(), { key: project.keys.readOnly })).body).toMatchObject({
      attribution_window_days: 30,
      attribution_model: 'first_click',
    });
    const patch = (body: Record<string, unknown>) => stack.api.patch(settingsPath(), { key: project.keys.admin, body });
    expect(await patch({ attribution_window_days: 7, attribution_model: 'last_click' })).toMatchObject({
      status: 200,
      body: { attribution_window_days: 7, attribution_model: 'last_click', program_url: null },
    });
    for (const [body, field] of [
      [{ attribution_window_days: 0 }, 'attribution_window_days'],
      [{ attribution_window_days: 366 }, 'attribution_window_days'],
      [{ attribution_window_days: 2.5 }, 'attribution_window_days'],
      [{ attribution_window_days: '7' }, 'attribution_window_days'],
      [{ attribution_model: 'middle_click' }, 'attribution_model'],
    ] as const) {
      const refused = await patch(body);
      expect(refused).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(refused.body.details).toEqual([expect.objectContaining({ field })]);
    }
    expect((await stack.api.patch(settingsPath(), { key: project.keys.readOnly, body: { attribution_window_days: 9 } })).status).toBe(403);
    expect((await stack.api.get(settingsPath(), { key: project.keys.admin })).body).toMatchObject({
      attribution_window_days: 7,
      attribution_model: 'last_click',
    });
    // null returns each to its default.
    expect((await patch({ attribution_window_days: null, attribution_model: null })).body).toMatchObject({
      attribution_window_days: 30,
      attribution_model: 'first_click',
    });
  });

  it('lists events newest first with what each did once processed, filtered by tracking id, name and user', async () => {
    const affiliateWallet = randomEvmAddress();
    const code = `track_${randomBytes(3).toString('hex')}`;
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: affiliateWallet, identifier_type: 'evm_address', name: 'Tracked', code },
    });
    expect(created.status).toBe(201);
    const visitor = `t-${randomUUID()}`;
    const user = { identifier: randomEvmAddress(), identifierType: 'evm_address' as const };
    const receivedAt = stack.clock.now();
    const click = await insertTrackingBatch(agencyDb.db, project.id, receivedAt, [pageview(visitor, code.toUpperCase())]);
    const connect = await insertTrackingBatch(agencyDb.db, project.id, new Date(receivedAt.getTime() + 1_000), [connectWallet(visitor, user)]);

    const read = (query: string, key = project.keys.readOnly) => stack.api.get(eventsPath(query), { key });
    const listed = await pollUntil(
      async () => {
        const response = await read(`?tracking_id=${visitor}`);
        return response.body.results?.every((event: { processed_at: string | null }) => event.processed_at !== null) && response;
      },
      { timeoutMs: 20_000, what: 'both batches processed' },
    );
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total_results: 2, page: 1, page_size: 25 });
    expect(listed.body.results).toEqual([
      {
        id: connect.eventIds[0],
        name: 'connect_wallet',
        tracking_id: visitor,
        user_identifier: user.identifier,
        user_identifier_type: 'evm_address',
        signature_verified: true,
        referrer: null,
        received_at: new Date(receivedAt.getTime() + 1_000).toISOString(),
        processed_at: expect.any(String),
        outcome: 'referred',
        affiliate_id: created.body.id,
        code,
        args: {},
        metadata: { tracking_id: visitor },
      },
      expect.objectContaining({
        id: click.eventIds[0],
        name: 'pageview',
        referrer: code.toUpperCase(),
        outcome: 'click',
        code,
        user_identifier: null,
      }),
    ]);
    expect((await read(`?name=pageview&tracking_id=${visitor}`)).body.results.map((e: { id: string }) => e.id)).toEqual([click.eventIds[0]]);
    expect(
      (await read(`?user_identifier=${user.identifier.toUpperCase().replace('0X', '0x')}`)).body.results.map((e: { id: string }) => e.id),
    ).toEqual([connect.eventIds[0]]);
    expect((await read(`?tracking_id=${visitor}&page_size=1&page=2`)).body).toMatchObject({ total_results: 2, results: [{ id: click.eventIds[0] }] });
    expect(await read('?user_identifier=not-a-wallet')).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect((await read('', project.keys.service)).status).toBe(403);
  });
  it('counts a user’s events for the audience: a batch of its events puts it in an event_count segment (agency.user_events.counted)', async () => {
    const audience = await createSegment(stack, project, {
      condition: { metric: 'event_count', event_name: 'swap', window_days: 7, op: 'gte', value: 3 },
    });
    const [trader, browser] = [randomEvmAddress(), randomEvmAddress()];
    const visitor = `t-${randomUUID()}`;
    const swap = (identifier: string) => ({ name: 'swap', trackingId: visitor, user: { identifier, identifierType: 'evm_address' as const } });
    await insertTrackingBatch(agencyDb.db, project.id, stack.clock.now(), [swap(trader), swap(trader), swap(browser)]);
    await insertTrackingBatch(agencyDb.db, project.id, stack.clock.now(), [swap(trader), swap(browser), { name: 'swap', trackingId: visitor }]);
    const entries = async () => {
      const response = await stack.api.get(`/v1/audience-segments/${audience.id}/entries?page_size=100`, { key: project.keys.service });
      return (response.body.results as { identifier: string }[]).map((entry) => entry.identifier);
    };
    expect(await pollUntil(async () => (await entries()).length > 0 && entries(), { timeoutMs: 20_000, what: 'the trader in the segment' })).toEqual([
      trader,
    ]);
  });
});
