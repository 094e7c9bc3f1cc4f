import { randomUUID } from 'node:crypto';
import { TrackingRepository } from '../../../services/agency/repositories/tracking.repository';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { connectWallet, insertTrackingBatch, pageview, type TestTrackingEvent } from '../../helpers/tracking-batches';
import { newAffiliate, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const DAY_MS = 86_400_000;

/**
 * The processing half of tracking (issue 24 §1): what a stored batch of events causes, applied once by
 * its job. Every outcome, the attribution window's edges and both models, click deduplication per UTC
 * day, idempotency, and the exact counts event.
 */
describe('tracking batch processing (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  beforeEach(() => harness.clock.set(START));

  const tracking = () => harness.domain.tracking;
  const newTrackingId = () => `t-${randomUUID()}`;

  /** Stores a batch received now (the test clock) and applies it as its job does. */
  async function process(projectId: string, events: TestTrackingEvent[]) {
    const stored = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), events);
    const result = await tracking().apply(stored.batchId);
    return { ...stored, result };
  }

  const outcomes = async (eventIds: string[]) => {
    const { rows } = await harness.sql.query(
      'SELECT event_id, outcome, affiliate_id, code FROM agency.tracking_event_outcomes WHERE event_id = ANY($1::uuid[])',
      [eventIds],
    );
    const byId = new Map(rows.map((row) => [row.event_id, { outcome: row.outcome, affiliate_id: row.affiliate_id, code: row.code }]));
    return eventIds.map((id) => byId.get(id) ?? null);
  };
  const clicks = async (projectId: string) =>
    (
      await harness.sql.query(
        'SELECT code, tracking_id, day::text AS day, first_at FROM agency.code_clicks WHERE project_id = $1 ORDER BY first_at, code',
        [projectId],
      )
    ).rows;
  const referrals = async (projectId: string) =>
    (await harness.sql.query('SELECT identifier, affiliate_id, code, referred_at FROM agency.referrals WHERE project_id = $1', [projectId])).rows;
  const links = async (projectId: string) =>
    (await harness.sql.query('SELECT tracking_id, identifier, linked_at FROM agency.tracking_links WHERE project_id = $1', [projectId])).rows;
  const outboxPayloads = async (projectId: string, type: string) =>
    (
      await harness.sql.query('SELECT payload FROM agency.outbox WHERE project_id = $1 AND type = $2 ORDER BY created_at, id', [projectId, type])
    ).rows.map((row) => row.payload);

  describe('pageviews', () => {
    it('counts a click for a referrer naming a code in any letter case (lower-cased, UTC day), and none for an unknown code', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const [known, unknown] = [newTrackingId(), newTrackingId()];
      const { eventIds, result } = await process(projectId, [
        pageview(known, alice.code.toUpperCase()),
        pageview(unknown, 'nobody_has_this'),
        pageview(unknown),
      ]);
      expect(result).toEqual({ applied: true, events: 3, clicks: 1, referrals: 0, wroteEvents: false });
      expect(await outcomes(eventIds)).toEqual([
        { outcome: 'click', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() },
        { outcome: 'unknown_code', affiliate_id: null, code: null },
        // A pageview without a referrer attributes nothing: no outcome.
        null,
      ]);
      expect(await clicks(projectId)).toEqual([{ code: alice.code.toLowerCase(), tracking_id: known, day: '2026-11-21', first_at: new Date(START) }]);
    });

    it('counts one click per code, tracking id and UTC day, across batches; another day or another tracking id is another click', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const bob = await newAffiliate(harness, projectId, 'Bob');
      const [visitor, other] = [newTrackingId(), newTrackingId()];
      harness.clock.set('2026-11-21T00:00:00.000Z');
      await process(projectId, [pageview(visitor, alice.code), pageview(visitor, alice.code)]);
      harness.clock.set('2026-11-21T23:59:59.999Z');
      const again = await process(projectId, [pageview(visitor, alice.code), pageview(visitor, bob.code), pageview(other, alice.code)]);
      expect(again.result.clicks).toBe(2);
      // Every pageview naming a code says click, counted or not.
      expect((await outcomes(again.eventIds)).map((outcome) => outcome?.outcome)).toEqual(['click', 'click', 'click']);
      harness.clock.set('2026-11-22T00:00:00.000Z');
      await process(projectId, [pageview(visitor, alice.code)]);
      expect(await clicks(projectId)).toEqual([
        { code: alice.code.toLowerCase(), tracking_id: visitor, day: '2026-11-21', first_at: new Date('2026-11-21T00:00:00.000Z') },
        { code: alice.code.toLowerCase(), tracking_id: other, day: '2026-11-21', first_at: new Date('2026-11-21T23:59:59.999Z') },
        { code: bob.code.toLowerCase(), tracking_id: visitor, day: '2026-11-21', first_at: new Date('2026-11-21T23:59:59.999Z') },
        { code: alice.code.toLowerCase(), tracking_id: visitor, day: '2026-11-22', first_at: new Date('2026-11-22T00:00:00.000Z') },
      ]);
      const counts = await new TrackingRepository(harness.db).clicksByCode(projectId, [alice.code.toUpperCase(), bob.code, 'no_such_code']);
      expect(Object.fromEntries(counts)).toEqual({ [alice.code.toLowerCase()]: 3, [bob.code.toLowerCase()]: 1, no_such_code: 0 });
    });
  });

  describe('connect_wallet', () => {
    it('links the tracking id and refers the wallet by the code of its click (referred), announcing the referral', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      await process(projectId, [pageview(visitor, alice.code)]);
      harness.clock.advance(3_600_000);
      const connectedAt = harness.clock.now();
      const { eventIds, result } = await process(projectId, [connectWallet(visitor, user)]);
      expect(result).toMatchObject({ applied: true, referrals: 1, wroteEvents: true });
      expect(await outcomes(eventIds)).toEqual([{ outcome: 'referred', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() }]);
      expect(await referrals(projectId)).toEqual([
        { identifier: user.identifier, affiliate_id: alice.affiliate.id, code: alice.code, referred_at: connectedAt },
      ]);
      expect(await links(projectId)).toEqual([{ tracking_id: visitor, identifier: user.identifier, linked_at: connectedAt }]);
      expect(await outboxPayloads(projectId, 'agency.referral.created')).toEqual([
        {
          project_id: projectId,
          user: { identifier: user.identifier, identifier_type: 'evm_address' },
          affiliate: { id: alice.affiliate.id, user: { identifier: alice.user.identifier, identifier_type: 'evm_address' } },
          referred_at: connectedAt.toISOString(),
        },
      ]);
    });

    it('dates the referral and the link when the wallet connected, however late the batch is processed', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const connectedAt = harness.clock.now();
      const { batchId } = await insertTrackingBatch(harness.db, projectId, connectedAt, [
        pageview(visitor, alice.code),
        connectWallet(visitor, user),
      ]);
      harness.clock.advance(600_000);
      await tracking().apply(batchId);
      expect((await referrals(projectId))[0]).toMatchObject({ referred_at: connectedAt });
      expect((await links(projectId))[0]).toMatchObject({ linked_at: connectedAt });
      const { rows } = await harness.sql.query(
        `SELECT created_at, payload->>'referred_at' AS referred_at FROM agency.outbox WHERE project_id = $1 AND type = 'agency.referral.created'`,
        [projectId],
      );
      expect(rows).toEqual([{ created_at: harness.clock.now(), referred_at: connectedAt.toISOString() }]);
      const processed = await harness.sql.query('SELECT processed_at FROM agency.tracking_event_batches WHERE id = $1', [batchId]);
      expect(processed.rows).toEqual([{ processed_at: harness.clock.now() }]);
    });

    it('attributes a connect_wallet to a click of the same batch', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const { eventIds } = await process(projectId, [connectWallet(visitor, user), pageview(visitor, alice.code)]);
      expect((await outcomes(eventIds)).map((outcome) => outcome?.outcome)).toEqual(['referred', 'click']);
    });

    it('keeps the first referral (already_referred, naming the referrer), refuses self-referral and a suspended affiliate', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const bob = await newAffiliate(harness, projectId, 'Bob');
      const suspended = await newAffiliate(harness, projectId, 'Sus');
      await harness.domain.affiliates.suspend(projectId, suspended.user, 'fraud', null);
      const referredBefore = newUser();
      await harness.domain.referrals.refer(projectId, referredBefore, bob.code);
      const [t1, t2, t3] = [newTrackingId(), newTrackingId(), newTrackingId()];
      await process(projectId, [pageview(t1, alice.code), pageview(t2, alice.code), pageview(t3, suspended.code)]);
      const suspendedVisitor = newUser();
      const { eventIds } = await process(projectId, [
        connectWallet(t1, referredBefore),
        connectWallet(t2, alice.user),
        connectWallet(t3, suspendedVisitor),
      ]);
      expect(await outcomes(eventIds)).toEqual([
        { outcome: 'already_referred', affiliate_id: bob.affiliate.id, code: bob.code.toLowerCase() },
        { outcome: 'self_referral', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() },
        { outcome: 'affiliate_suspended', affiliate_id: suspended.affiliate.id, code: suspended.code.toLowerCase() },
      ]);
      expect((await referrals(projectId)).map((row) => [row.identifier, row.affiliate_id])).toEqual([[referredBefore.identifier, bob.affiliate.id]]);
      // Linked all the same: the links say which wallet each tracking id connected.
      expect((await links(projectId)).map((row) => row.tracking_id).sort()).toEqual([t1, t2, t3].sort());
    });

    it('says referral_cycle for an affiliate whose click was of its own downline, and refers nobody (docs/claims.md#referral-levels)', async () => {
      const projectId = newProject();
      const top = await newAffiliate(harness, projectId, 'Top');
      const middle = await newAffiliate(harness, projectId, 'Middle');
      const bottom = await newAffiliate(harness, projectId, 'Bottom');
      await harness.domain.referrals.refer(projectId, middle.user, top.code);
      await harness.domain.referrals.refer(projectId, bottom.user, middle.code);
      const [t1, t2] = [newTrackingId(), newTrackingId()];
      await process(projectId, [pageview(t1, bottom.code), pageview(t2, middle.code)]);
      const { eventIds } = await process(projectId, [connectWallet(t1, top.user), connectWallet(t2, top.user)]);
      expect(await outcomes(eventIds)).toEqual([
        { outcome: 'referral_cycle', affiliate_id: bottom.affiliate.id, code: bottom.code.toLowerCase() },
        { outcome: 'referral_cycle', affiliate_id: middle.affiliate.id, code: middle.code.toLowerCase() },
      ]);
      expect((await referrals(projectId)).map((row) => row.affiliate_id).sort()).toEqual([top.affiliate.id, middle.affiliate.id].sort());
    });

    it('says no_click without a click in the window (linking the tracking id), and unverified without a verified signature (linking nothing)', async () => {
      const projectId = newProject();
      const [withoutClick, unverified, anonymous] = [newTrackingId(), newTrackingId(), newTrackingId()];
      const alice = await newAffiliate(harness, projectId, 'Alice');
      await process(projectId, [pageview(unverified, alice.code)]);
      const user = newUser();
      const { eventIds, result } = await process(projectId, [
        connectWallet(withoutClick, user),
        connectWallet(unverified, newUser(), false),
        { name: 'connect_wallet', trackingId: anonymous, signatureVerified: true },
      ]);
      expect(result.referrals).toBe(0);
      expect((await outcomes(eventIds)).map((outcome) => outcome?.outcome)).toEqual(['no_click', 'unverified', 'unverified']);
      expect((await links(projectId)).map((row) => [row.tracking_id, row.identifier])).toEqual([[withoutClick, user.identifier]]);
      expect(await referrals(projectId)).toEqual([]);
    });

    it('applies a pending earlier batch holding a pageview of the same tracking id first, whichever job runs first', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const click = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [pageview(visitor, alice.code)]);
      const unrelated = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [pageview(newTrackingId(), alice.code)]);
      harness.clock.advance(1_000);
      const connect = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [connectWallet(visitor, user)]);
      expect(await tracking().apply(connect.batchId)).toMatchObject({ applied: true, clicks: 1, referrals: 1 });
      expect(await outcomes([...click.eventIds, ...connect.eventIds])).toEqual([
        { outcome: 'click', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() },
        { outcome: 'referred', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() },
      ]);
      // The pageview's own job then finds its batch processed; a batch of other tracking ids was left to its job.
      expect((await tracking().apply(click.batchId)).applied).toBe(false);
      expect(await tracking().pending(10_000)).toEqual(expect.arrayContaining([unrelated.batchId]));
      expect(await clicks(projectId)).toHaveLength(1);
    });

    it('refers every wallet exactly once when the batches of 20 visitors (pageview, then connect_wallet) are applied concurrently in any order', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const batches: string[] = [];
      for (let n = 0; n < 20; n++) {
        const visitor = newTrackingId();
        batches.push((await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [pageview(visitor, alice.code)])).batchId);
        harness.clock.advance(10);
        batches.push((await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [connectWallet(visitor, newUser())])).batchId);
      }
      // Connects first, then pageviews: the worst order; a deadlock's loser would throw, as its job would retry.
      const order = [...batches.filter((_, n) => n % 2 === 1).reverse(), ...batches.filter((_, n) => n % 2 === 0)];
      await Promise.all(order.map((batchId) => tracking().apply(batchId)));
      expect(await referrals(projectId)).toHaveLength(20);
      expect(await clicks(projectId)).toHaveLength(20);
    });

    it('keeps a tracking id’s first link when another wallet connects with it', async () => {
      const projectId = newProject();
      const visitor = newTrackingId();
      const [first, second] = [newUser(), newUser()];
      await process(projectId, [connectWallet(visitor, first)]);
      harness.clock.advance(60_000);
      await process(projectId, [connectWallet(visitor, second)]);
      expect(await links(projectId)).toEqual([{ tracking_id: visitor, identifier: first.identifier, linked_at: new Date(START) }]);
    });
  });

  describe('the attribution window and model', () => {
    /** A click through `code` at START, and a connect_wallet `days` later: the outcome and the referral's code. */
    async function connectAfter(projectId: string, code: string, days: number) {
      const visitor = newTrackingId();
      const user = newUser();
      harness.clock.set(START);
      await process(projectId, [pageview(visitor, code)]);
      harness.clock.set(new Date(new Date(START).getTime() + days * DAY_MS));
      const { eventIds } = await process(projectId, [connectWallet(visitor, user)]);
      return (await outcomes(eventIds))[0]?.outcome;
    }

    it('counts a click 29 days and exactly 30 days old (default window), not one 31 days old', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      expect(await connectAfter(projectId, alice.code, 29)).toBe('referred');
      expect(await connectAfter(projectId, alice.code, 30)).toBe('referred');
      expect(await connectAfter(projectId, alice.code, 31)).toBe('no_click');
    });

    it('follows the project’s window: 7 days refers after 6 days, not after 8', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      await harness.domain.programSettings.update(projectId, { mask: ['attribution_window_days'], attributionWindowDays: 7 }, null);
      expect(await connectAfter(projectId, alice.code, 6)).toBe('referred');
      expect(await connectAfter(projectId, alice.code, 8)).toBe('no_click');
    });

    it('picks the oldest click of the window by default (first_click) and the newest with last_click; a click older than the window never counts', async () => {
      const projectId = newProject();
      const [old, alice, bob] = [
        await newAffiliate(harness, projectId, 'Old'),
        await newAffiliate(harness, projectId, 'Alice'),
        await newAffiliate(harness, projectId, 'Bob'),
      ];
      const visitor = newTrackingId();
      const at = (days: number) => harness.clock.set(new Date(new Date(START).getTime() + days * DAY_MS));
      at(0);
      await process(projectId, [pageview(visitor, old.code)]);
      at(2);
      await process(projectId, [pageview(visitor, alice.code)]);
      at(20);
      await process(projectId, [pageview(visitor, bob.code)]);
      at(31);
      const firstClick = await process(projectId, [connectWallet(visitor, newUser())]);
      expect(await outcomes(firstClick.eventIds)).toEqual([
        { outcome: 'referred', affiliate_id: alice.affiliate.id, code: alice.code.toLowerCase() },
      ]);

      await harness.domain.programSettings.update(projectId, { mask: ['attribution_model'], attributionModel: 'last_click' }, null);
      const lastClick = await process(projectId, [connectWallet(visitor, newUser())]);
      expect(await outcomes(lastClick.eventIds)).toEqual([{ outcome: 'referred', affiliate_id: bob.affiliate.id, code: bob.code.toLowerCase() }]);
    });

    it('keeps the window within 1..365 days and the model to first_click or last_click; listed without a value, each returns to its default', async () => {
      const projectId = newProject();
      for (const days of [0, 366, 1.5]) {
        await expect(
          harness.domain.programSettings.update(projectId, { mask: ['attribution_window_days'], attributionWindowDays: days }, null),
        ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'attribution_window_days' }] });
      }
      expect(await harness.domain.programSettings.get(projectId)).toMatchObject({ attributionWindowDays: 30, attributionModel: 'first_click' });
      await harness.domain.programSettings.update(
        projectId,
        { mask: ['attribution_window_days', 'attribution_model'], attributionWindowDays: 365, attributionModel: 'last_click' },
        null,
      );
      expect(await harness.domain.programSettings.get(projectId)).toMatchObject({ attributionWindowDays: 365, attributionModel: 'last_click' });
      await harness.domain.programSettings.update(projectId, { mask: ['program_url'], programUrl: 'https://example.com' }, null);
      expect(await harness.domain.programSettings.get(projectId)).toMatchObject({ attributionWindowDays: 365, attributionModel: 'last_click' });
      await harness.domain.programSettings.update(projectId, { mask: ['attribution_window_days', 'attribution_model'] }, null);
      expect(await harness.domain.programSettings.get(projectId)).toMatchObject({ attributionWindowDays: 30, attributionModel: 'first_click' });
    });
  });

  describe('counts and idempotency', () => {
    it('writes one agency.user_events.counted per batch: identified events per user, name and UTC day; anonymous ones are not counted', async () => {
      const projectId = newProject();
      const [ann, ben] = [newUser(), newUser()];
      const visitor = newTrackingId();
      harness.clock.set('2026-11-21T23:30:00.000Z');
      const { result } = await process(projectId, [
        { name: 'swap', trackingId: visitor, user: ann },
        { name: 'swap', trackingId: visitor, user: ann },
        { name: 'stake', trackingId: visitor, user: ann },
        { name: 'swap', trackingId: visitor, user: ben },
        { name: 'swap', trackingId: visitor },
        pageview(visitor),
      ]);
      expect(result).toEqual({ applied: true, events: 6, clicks: 0, referrals: 0, wroteEvents: true });
      const [payload] = await outboxPayloads(projectId, 'agency.user_events.counted');
      expect(await outboxPayloads(projectId, 'agency.user_events.counted')).toHaveLength(1);
      const sorted = [...payload.counts].sort((a, b) => `${a.user.identifier}${a.name}`.localeCompare(`${b.user.identifier}${b.name}`));
      const annUser = { identifier: ann.identifier, identifier_type: 'evm_address' };
      const benUser = { identifier: ben.identifier, identifier_type: 'evm_address' };
      expect({ ...payload, counts: sorted }).toEqual({
        project_id: projectId,
        counts: [
          { user: annUser, name: 'stake', day: '2026-11-21', count: 1 },
          { user: annUser, name: 'swap', day: '2026-11-21', count: 2 },
          { user: benUser, name: 'swap', day: '2026-11-21', count: 1 },
        ].sort((a, b) => `${a.user.identifier}${a.name}`.localeCompare(`${b.user.identifier}${b.name}`)),
      });
    });

    it('counts an event without a user (the SDK’s sendEvent) for the wallet its tracking id was linked to before it was received', async () => {
      const projectId = newProject();
      const [linked, unlinked] = [newTrackingId(), newTrackingId()];
      const [ann, ben] = [newUser(), newUser()];
      // Sent before the wallet connected: anonymous, and stays so.
      await process(projectId, [{ name: 'deposit', trackingId: linked }]);
      harness.clock.set('2026-11-21T12:00:01.000Z');
      await process(projectId, [connectWallet(linked, ann)]);
      harness.clock.set('2026-11-21T12:00:02.000Z');
      const { result } = await process(projectId, [
        { name: 'deposit', trackingId: linked },
        { name: 'deposit', trackingId: linked },
        { name: 'deposit', trackingId: linked, user: ben },
        { name: 'deposit', trackingId: unlinked },
      ]);
      expect(result.wroteEvents).toBe(true);
      const deposits = (await outboxPayloads(projectId, 'agency.user_events.counted'))
        .flatMap((payload) => payload.counts)
        .filter((entry: { name: string }) => entry.name === 'deposit')
        .sort((a: { count: number }, b: { count: number }) => b.count - a.count);
      expect(deposits).toEqual([
        { user: { identifier: ann.identifier, identifier_type: 'evm_address' }, name: 'deposit', day: '2026-11-21', count: 2 },
        { user: { identifier: ben.identifier, identifier_type: 'evm_address' }, name: 'deposit', day: '2026-11-21', count: 1 },
      ]);
    });

    it('writes no counts event for a batch of anonymous events', async () => {
      const projectId = newProject();
      const { result } = await process(projectId, [pageview(newTrackingId()), { name: 'swap', trackingId: newTrackingId() }]);
      expect(result.wroteEvents).toBe(false);
      expect(await outboxPayloads(projectId, 'agency.user_events.counted')).toEqual([]);
    });

    it('applies a batch once: applying it again (a redelivered job) changes nothing', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const { batchId } = await process(projectId, [
        pageview(visitor, alice.code),
        connectWallet(visitor, user),
        { name: 'swap', trackingId: visitor, user },
      ]);
      const snapshot = async () => ({
        clicks: await clicks(projectId),
        referrals: await referrals(projectId),
        links: await links(projectId),
        counted: await outboxPayloads(projectId, 'agency.user_events.counted'),
        referralEvents: await outboxPayloads(projectId, 'agency.referral.created'),
        endUsers: (await harness.sql.query('SELECT end_users FROM agency.affiliate_metrics WHERE affiliate_id = $1', [alice.affiliate.id])).rows,
      });
      const before = await snapshot();
      expect(before.referrals).toHaveLength(1);
      expect(before.counted).toHaveLength(1);
      harness.clock.advance(60_000);
      expect(await tracking().apply(batchId)).toEqual({ applied: false, events: 0, clicks: 0, referrals: 0, wroteEvents: false });
      // Concurrent deliveries: the batch's row lock lets one apply, the others find it processed.
      expect((await Promise.all([tracking().apply(batchId), tracking().apply(batchId)])).map((r) => r.applied)).toEqual([false, false]);
      expect(await snapshot()).toEqual(before);
    });

    it('applies concurrent deliveries of a new batch exactly once', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const { batchId } = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [
        pageview(visitor, alice.code),
        connectWallet(visitor, user),
        { name: 'swap', trackingId: visitor, user },
      ]);
      const results = await Promise.all(Array.from({ length: 4 }, () => tracking().apply(batchId)));
      expect(results.map((r) => r.applied).sort()).toEqual([false, false, false, true]);
      expect(await clicks(projectId)).toHaveLength(1);
      expect(await referrals(projectId)).toHaveLength(1);
      expect(await outboxPayloads(projectId, 'agency.user_events.counted')).toHaveLength(1);
    });

    it('lists pending batches oldest first until processed; a given-up batch is no longer pending and is never applied', async () => {
      const projectId = newProject();
      const older = await insertTrackingBatch(harness.db, projectId, new Date('2020-01-01T00:00:00.000Z'), [pageview(newTrackingId())]);
      const newer = await insertTrackingBatch(harness.db, projectId, new Date('2020-01-02T00:00:00.000Z'), [pageview(newTrackingId())]);
      const pending = await tracking().pending(10_000);
      expect(pending.indexOf(older.batchId)).toBeGreaterThanOrEqual(0);
      expect(pending.indexOf(older.batchId)).toBeLessThan(pending.indexOf(newer.batchId));
      await tracking().apply(older.batchId);
      await tracking().fail(newer.batchId, 'Error: boom');
      expect(await tracking().pending(10_000)).not.toEqual(expect.arrayContaining([older.batchId]));
      expect(await tracking().pending(10_000)).not.toEqual(expect.arrayContaining([newer.batchId]));
      expect((await tracking().apply(newer.batchId)).applied).toBe(false);
      const { rows } = await harness.sql.query('SELECT processed_at, failed_at, failure FROM agency.tracking_event_batches WHERE id = $1', [
        newer.batchId,
      ]);
      expect(rows).toEqual([{ processed_at: null, failed_at: new Date(START), failure: expect.stringContaining('could not be processed') }]);
    });
  });

  describe('the events list', () => {
    it('lists events newest first with their outcome, filtered by tracking id, name and user', async () => {
      const projectId = newProject();
      const alice = await newAffiliate(harness, projectId, 'Alice');
      const visitor = newTrackingId();
      const user = newUser();
      const first = await process(projectId, [pageview(visitor, alice.code)]);
      harness.clock.advance(1_000);
      const second = await insertTrackingBatch(harness.db, projectId, harness.clock.now(), [connectWallet(visitor, user)]);
      const page = { page: 1, pageSize: 10, offset: 0 };
      const unprocessed = await tracking().list(projectId, {}, page);
      expect(unprocessed.total).toBe(2);
      expect(unprocessed.records.map((e) => [e.id, e.outcome, e.processedAt])).toEqual([
        [second.eventIds[0], null, null],
        [first.eventIds[0], 'click', new Date(START)],
      ]);
      await tracking().apply(second.batchId);
      const listed = await tracking().list(projectId, { trackingId: visitor, name: 'connect_wallet' }, page);
      expect(listed.records).toEqual([
        expect.objectContaining({
          id: second.eventIds[0],
          name: 'connect_wallet',
          trackingId: visitor,
          user,
          signatureVerified: true,
          outcome: 'referred',
          affiliateId: alice.affiliate.id,
          code: alice.code.toLowerCase(),
          metadata: { tracking_id: visitor },
        }),
      ]);
      // A user filter in another letter case finds the same (canonical) wallet.
      expect(
        (
          await tracking().list(
            projectId,
            { user: { identifier: user.identifier.toUpperCase().replace('0X', '0x'), identifierType: 'evm_address' } },
            page,
          )
        ).total,
      ).toBe(1);
      expect((await tracking().list(projectId, { trackingId: 'nobody' }, page)).total).toBe(0);
    });
  });
});
