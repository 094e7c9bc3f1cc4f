import { randomBytes, randomUUID } from 'node:crypto';
import { Fuul, UserIdentifierType } from '@fuul/sdk';
import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../../services/agency/database';
import { openDatabase } from '../../services/platform/db/database';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { createProject, createSegment, randomEvmAddress, startStackWithProject, type TestProject, useStackWithProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { connectWallet, insertTrackingBatch, pageview } from '../helpers/tracking-batches';
import { newWallet } from '../helpers/wallet';
import { FakeBrowser, refusal, initFuulSdk } from '../helpers/fuul-sdk';

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

/** Per tracking id and per key, low enough to reach in a test, and refilling too slowly to matter while it runs. */
const TRACKING_ID_BURST = 5;
const KEY_BURST = 25;

/**
 * POST /api/v1/events through the published @fuul/sdk (sendPageview, identifyUser, sendEvent) with a
 * send:tracking_event key, as a web page uses it; batches, bad input and limits over plain HTTP.
 */
describe('tracking events: POST /api/v1/events', () => {
  let stack: TestStack;
  let project: TestProject;
  const browser = new FakeBrowser();
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject({
      gatewayEnv: {
        EVENTS_PER_TRACKING_ID_BURST: String(TRACKING_ID_BURST),
        EVENTS_PER_TRACKING_ID_PER_SECOND: '0.0001',
        EVENTS_RATE_LIMIT_BURST: String(KEY_BURST),
        EVENTS_RATE_LIMIT_PER_SECOND: '0.0001',
      },
    }));
    browser.install();
    initFuulSdk(stack, project.keys.tracking);
  });
  afterAll(async () => {
    browser.uninstall();
    await stack.stop();
  });

  const eventRows = async (trackingId: string) =>
    (
      await stack.db.query(
        `SELECT e.name, e.tracking_id, e.identifier_type, e.identifier, e.signature_verified, e.referrer, e.dedup_id, e.args, e.metadata,
                e.received_at, b.event_count
         FROM agency.tracking_events e JOIN agency.tracking_event_batches b ON b.id = e.batch_id
         WHERE e.project_id = $1 AND e.tracking_id = $2 ORDER BY e.received_at, e.name`,
        [project.id, trackingId],
      )
    ).rows;
  const countRows = async (trackingId: string) => (await eventRows(trackingId)).length;

  it('stores a pageview opened with ?af=, exactly as the SDK sent it', async () => {
    browser.visit('https://app.example.com/landing?af=AliceCode&source=twitter');
    await Fuul.sendPageview();
    expect(await eventRows(browser.trackingId)).toEqual([
      {
        name: 'pageview',
        tracking_id: browser.trackingId,
        identifier_type: null,
        identifier: null,
        signature_verified: false,
        referrer: 'AliceCode',
        dedup_id: null,
        args: { page: '/landing', locationOrigin: 'https://app.example.com' },
        metadata: { tracking_id: browser.trackingId, referrer_url: '', source: 'twitter', affiliate_id: 'AliceCode', referrer: 'AliceCode' },
        received_at: stack.clock.now(),
        event_count: 1,
      },
    ]);
  });

  it('stores a signed connect_wallet as verified, an unsigned one as not, and refuses a signature the wallet did not make', async () => {
    const wallet = await newWallet();
    browser.visit('https://app.example.com/');
    const message = `Connect ${wallet.checksumAddress} to Example`;
    await Fuul.identifyUser({
      identifier: wallet.checksumAddress,
      identifierType: UserIdentifierType.EvmAddress,
      signature: await wallet.sign(message),
      message,
    });
    const signedBy = browser.trackingId;
    expect(await eventRows(signedBy)).toEqual([
      expect.objectContaining({
        name: 'connect_wallet',
        identifier_type: 'evm_address',
        identifier: wallet.address,
        signature_verified: true,
        args: { page: '/', locationOrigin: 'https://app.example.com' },
        metadata: { tracking_id: signedBy },
      }),
    ]);

    browser.visit('https://app.example.com/');
    await Fuul.identifyUser({ identifier: wallet.checksumAddress, identifierType: UserIdentifierType.EvmAddress });
    expect(await eventRows(browser.trackingId)).toEqual([
      expect.objectContaining({ name: 'connect_wallet', identifier: wallet.address, signature_verified: false }),
    ]);

    browser.visit('https://app.example.com/');
    const impostor = await newWallet();
    const refused = await refusal(
      Fuul.identifyUser({
        identifier: wallet.checksumAddress,
        identifierType: UserIdentifierType.EvmAddress,
        signature: await impostor.sign(message),
        message,
      }),
    );
    expect(refused).toMatchObject({ status: 400, body: { code: 'INVALID_SIGNATURE' } });
    expect(await countRows(browser.trackingId)).toBe(0);
  });

  it('refers a visitor’s wallet to the code it arrived with: ?af= pageview, then a signed connect_wallet, processed at once', async () => {
    const affiliate = await newWallet();
    const code = `sdk_${randomBytes(3).toString('hex')}`;
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: affiliate.address, identifier_type: 'evm_address', name: 'Referrer', code },
    });
    expect(created.status).toBe(201);
    browser.visit(`https://app.example.com/?af=${code.toUpperCase()}`);
    await Fuul.sendPageview();
    const visitor = await newWallet();
    const message = `Connect ${visitor.checksumAddress}`;
    await Fuul.identifyUser({
      identifier: visitor.checksumAddress,
      identifierType: UserIdentifierType.EvmAddress,
      signature: await visitor.sign(message),
      message,
    });
    const referral = await pollUntil(
      async () =>
        (
          await stack.db.query('SELECT affiliate_id, code FROM agency.referrals WHERE project_id = $1 AND identifier = $2', [
            project.id,
            visitor.address,
          ])
        ).rows[0],
      { timeoutMs: 20_000, what: 'the wallet referred' },
    );
    expect(referral).toEqual({ affiliate_id: created.body.id, code });
    const clicks = await stack.db.query('SELECT code, tracking_id FROM agency.code_clicks WHERE project_id = $1', [project.id]);
    expect(clicks.rows).toEqual([{ code: code.toLowerCase(), tracking_id: browser.trackingId }]);
  });

  it('stores a custom event, and answers 409 DUPLICATE_EVENT to its dedup_id sent again', async () => {
    browser.visit('https://app.example.com/deposit');
    await Fuul.sendEvent('deposit', { dedup_id: 'deposit-1', amount: '10' });
    const trackingId = browser.trackingId;
    expect(await eventRows(trackingId)).toEqual([
      expect.objectContaining({
        name: 'deposit',
        dedup_id: 'deposit-1',
        args: { dedup_id: 'deposit-1', amount: '10' },
        metadata: { tracking_id: trackingId },
      }),
    ]);
    // The SDK itself skips an identical event within a minute: another tab, with the same visitor, sends it again.
    browser.storage.delete('fuul.sent_deposit');
    expect(await refusal(Fuul.sendEvent('deposit', { dedup_id: 'deposit-1', amount: '10' }))).toMatchObject({
      status: 409,
      body: { code: 'DUPLICATE_EVENT' },
    });
    expect(await countRows(trackingId)).toBe(1);
  });

  it('sends to the key’s project when the SDK names it, and refuses 403 PROJECT_MISMATCH for another project, storing nothing', async () => {
    browser.visit('https://app.example.com/pricing');
    await Fuul.sendPageview(undefined, [project.id]);
    expect(await eventRows(browser.trackingId)).toEqual([
      expect.objectContaining({ metadata: expect.objectContaining({ project_id: project.id, tracking_id: browser.trackingId }) }),
    ]);

    const other = await createProject(stack, 'Someone else');
    browser.visit('https://app.example.com/pricing');
    expect(await refusal(Fuul.sendPageview(undefined, [other.id]))).toMatchObject({ status: 403, body: { code: 'PROJECT_MISMATCH' } });
    const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM agency.tracking_events WHERE project_id = $1', [other.id]);
    expect(rows[0].n).toBe(0);
  });

  it('takes a batch of events, stores them as one batch, and lists the indexes of repeated dedup ids', async () => {
    const wallet = await newWallet();
    const trackingId = `batch-${Date.now()}`;
    const metadata = { tracking_id: trackingId };
    const response = await stack.api.post('/api/v1/events', {
      key: project.keys.service,
      body: {
        events: [
          { name: 'pageview', args: { page: '/a' }, metadata: { ...metadata, referrer: 'BobCode' } },
          { name: 'trade', user_address: wallet.checksumAddress, args: { dedup_id: 'trade-1' }, metadata },
          {
            name: 'trade',
            user: { identifier: wallet.address, identifier_type: 'evm_address' },
            args: {},
            metadata: { ...metadata, dedup_id: 'trade-1' },
          },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ accepted: 2, duplicates: [2] });
    const rows = await eventRows(trackingId);
    expect(rows.map((row) => [row.name, row.identifier, row.referrer, row.dedup_id, row.event_count])).toEqual([
      ['pageview', null, 'BobCode', null, 2],
      ['trade', wallet.address, null, 'trade-1', 2],
    ]);

    // A signature in a batch that the wallet did not make refuses the whole batch, naming the event.
    const signedTrackingId = `${trackingId}-signed`;
    const message = 'Connect to Example';
    const badlySigned = await stack.api.post('/api/v1/events', {
      key: project.keys.service,
      body: {
        events: [
          { name: 'pageview', metadata: { tracking_id: signedTrackingId } },
          {
            name: 'connect_wallet',
            user: { identifier: wallet.address, identifier_type: 'evm_address' },
            signature: await (await newWallet()).sign(message),
            signature_message: message,
            metadata: { tracking_id: signedTrackingId },
          },
        ],
      },
    });
    expect(badlySigned.status).toBe(400);
    expect(badlySigned.body).toMatchObject({ code: 'INVALID_SIGNATURE', details: [{ field: 'events[1].signature' }] });
    expect(await countRows(signedTrackingId)).toBe(0);

    const again = await stack.api.post('/api/v1/events', {
      key: project.keys.admin,
      body: { events: [{ name: 'trade', args: { dedup_id: 'trade-1' }, metadata }] },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ accepted: 0, duplicates: [0] });
    expect(await countRows(trackingId)).toBe(2);
  });

  it('answers bad input 400 with the standard body naming the field (413 past 1,000 events), storing nothing', async () => {
    const trackingId = `bad-${Date.now()}`;
    const cases: Array<[unknown, number, string, string]> = [
      [{ name: 'pageview', args: {}, metadata: {} }, 400, 'VALIDATION_FAILED', 'metadata.tracking_id'],
      [{ name: '', metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'name'],
      [{ name: 'x'.repeat(101), metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'name'],
      [{ name: 'pageview', metadata: { tracking_id: 't'.repeat(129) } }, 400, 'VALIDATION_FAILED', 'metadata.tracking_id'],
      [{ name: 'pageview', args: { blob: 'y'.repeat(9_000) }, metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'args'],
      [{ name: 'pageview', args: [], metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'args'],
      [{ name: 'pageview', colour: 'red', metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'colour'],
      [{ name: 'connect_wallet', metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'user'],
      [{ name: 'trade', user_address: '0x1234', metadata: { tracking_id: trackingId } }, 400, 'VALIDATION_FAILED', 'user_address'],
      [
        {
          name: 'connect_wallet',
          user: { identifier: '0x' + 'a'.repeat(40), identifier_type: 'evm_address' },
          signature: '0xabc',
          metadata: { tracking_id: trackingId },
        },
        400,
        'VALIDATION_FAILED',
        'signature_message',
      ],
      [
        {
          events: [
            { name: 'pageview', metadata: { tracking_id: trackingId } },
            { name: '', metadata: { tracking_id: trackingId } },
          ],
        },
        400,
        'VALIDATION_FAILED',
        'events[1].name',
      ],
      [{ events: [] }, 400, 'VALIDATION_FAILED', 'events'],
      [
        { events: Array.from({ length: 1_001 }, () => ({ name: 'pageview', metadata: { tracking_id: trackingId } })) },
        413,
        'BATCH_TOO_LARGE',
        'events',
      ],
    ];
    for (const [body, status, code, field] of cases) {
      const response = await stack.api.post('/api/v1/events', { key: project.keys.service, body });
      // The message starts with the field (or, for a body of neither shape, with what it was meant as: "(body): an event: <field>: …").
      expect({ status: response.status, code: response.body.code, message: response.body.message }).toEqual({
        status,
        code,
        message: expect.stringMatching(new RegExp(`^(\\(body\\): (an event|a batch): )?${field.replace(/[[\]]/g, '\\$&')}(: | holds )`)),
      });
      expect(Object.keys(response.body).sort()).toEqual(['code', 'details', 'message', 'status']);
    }
    expect(await countRows(trackingId)).toBe(0);
    // Through the SDK too.
    browser.visit('https://app.example.com/');
    expect(await refusal(Fuul.sendEvent(''))).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('admits only send:tracking_event, service_role and admin keys here, and refuses a send:tracking_event key everywhere else', async () => {
    const readOnly = await stack.api.post('/api/v1/events', {
      key: project.keys.readOnly,
      body: { name: 'pageview', metadata: { tracking_id: 'ro' } },
    });
    expect(readOnly.status).toBe(403);
    expect(await countRows('ro')).toBe(0);

    // The SDK's other calls with the page's key: 403 (the access matrix checks every other operation the same way).
    const wallet = await newWallet();
    expect(await refusal(Fuul.getAffiliateCode(wallet.address, UserIdentifierType.EvmAddress))).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN' },
    });
    const conversion = await stack.api.post('/api/v1/conversions', { key: project.keys.tracking, body: { id: 'c-1', name: 'trade' } });
    expect(conversion.status).toBe(403);
    const keys = await stack.api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.tracking });
    expect(keys.status).toBe(403);
  });

  it('answers 429 past the limit of a tracking id, and past the limit of a key, storing nothing of the refused request', async () => {
    const trackingId = `busy-${Date.now()}`;
    const event = { name: 'pageview', metadata: { tracking_id: trackingId } };
    const first = await stack.api.post('/api/v1/events', {
      key: project.keys.service,
      body: { events: Array.from({ length: TRACKING_ID_BURST }, () => event) },
    });
    expect(first.status).toBe(202);
    const limited = await stack.api.post('/api/v1/events', { key: project.keys.service, body: event });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await countRows(trackingId)).toBe(TRACKING_ID_BURST);
    // Another visitor is not held back.
    expect(
      (await stack.api.post('/api/v1/events', { key: project.keys.service, body: { ...event, metadata: { tracking_id: `${trackingId}-2` } } }))
        .status,
    ).toBe(202);

    const created = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
      key: project.keys.admin,
      body: { role: 'send:tracking_event', name: 'landing page' },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < KEY_BURST; i++) {
      const sent = await stack.api.post('/api/v1/events', {
        key: created.body.key,
        body: { name: 'pageview', metadata: { tracking_id: `key-${i}-${trackingId}` } },
      });
      expect(sent.status).toBe(202);
    }
    const overKey = await stack.api.post('/api/v1/events', {
      key: created.body.key,
      body: { name: 'pageview', metadata: { tracking_id: `key-last-${trackingId}` } },
    });
    expect(overKey.status).toBe(429);
    expect(overKey.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await countRows(`key-last-${trackingId}`)).toBe(0);
  });
});
