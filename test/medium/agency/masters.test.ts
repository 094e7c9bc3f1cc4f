import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { actor, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

const START = '2026-11-21T12:00:00.000Z';
const HOUR = 3_600_000;

/** Master affiliates (§2.11): designation, spreads, binding rules and their history, on the domain and its tables. */
describe('master affiliates (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const masters = () => harness.domain.masters;
  const bindingsOf = async (masterId: string) =>
    (
      await harness.sql.query(
        'SELECT affiliate_id, bound_from, bound_to, bound_by, unbound_by FROM agency.sub_affiliate_bindings WHERE master_id = $1 ORDER BY id',
        [masterId],
      )
    ).rows;

  describe('designation', () => {
    it('makes an existing affiliate a master with its spread, shown in the detail, the list and the affiliate itself', async () => {
      const projectId = newProject();
      const affiliate = await newAffiliate(harness, projectId);
      const master = await masters().designate(projectId, userOf(affiliate), 250, actor);
      expect(master).toMatchObject({
        id: affiliate.id,
        user: affiliate.user,
        spreadBps: 250,
        subAffiliatesCount: 0,
        designatedAt: new Date(START),
        spreadHistory: [{ spreadBps: 250, validFrom: new Date(START), validTo: null }],
      });
      expect(await masters().list(projectId, { page: 1, pageSize: 25, offset: 0 })).toEqual({
        records: [expect.objectContaining({ id: affiliate.id })],
        total: 1,
      });
      expect(await harness.domain.details.describeOne(affiliate)).toMatchObject({ isMaster: true, master: null });
    });

    it.each([
      [-1, 'below 0'],
      [10_001, 'above 10,000'],
      [12.5, 'not whole'],
    ])('refuses a spread of %p bps (%s), and designates nobody', async (spread) => {
      const projectId = newProject();
      const affiliate = await newAffiliate(harness, projectId);
      await expect(masters().designate(projectId, userOf(affiliate), spread, actor)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'spread_bps', reason: expect.stringContaining('0 to 10000') }],
      });
      expect((await masters().list(projectId, { page: 1, pageSize: 25, offset: 0 })).total).toBe(0);
    });

    it('accepts the ends of the range, 0 and 10,000 bps', async () => {
      const projectId = newProject();
      for (const spread of [0, 10_000]) {
        const affiliate = await newAffiliate(harness, projectId);
        expect((await masters().designate(projectId, userOf(affiliate), spread, actor)).spreadBps).toBe(spread);
      }
    });

    it('refuses a user who is no affiliate and a master twice', async () => {
      const projectId = newProject();
      await expect(masters().designate(projectId, newUser(), 100, actor)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND', kind: 'not_found' });
      const master = await newAffiliate(harness, projectId);
      expect((await masters().designate(projectId, userOf(master), 100, actor)).unboundFrom).toBeNull();
      await expect(masters().designate(projectId, userOf(master), 100, actor)).rejects.toMatchObject({ code: 'ALREADY_MASTER', kind: 'conflict' });
    });

    it('designates a bound sub-affiliate (any affiliate can be a master): its binding ends at the designation, in the same transaction', async () => {
      const projectId = newProject();
      const old = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(old), 100, actor);
      const [sub, sibling] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      await masters().bind(projectId, old.id, [userOf(sub), userOf(sibling)], actor);
      harness.clock.advance(HOUR);
      const designatedAt = harness.clock.now();

      const master = await masters().designate(projectId, userOf(sub), 300, actor);
      expect(master).toMatchObject({ id: sub.id, spreadBps: 300, subAffiliatesCount: 0, designatedAt, unboundFrom: { id: old.id, user: old.user } });
      // Its binding closed at the designation, naming it; the sibling's stays open; the old master counts one.
      const { rows } = await harness.sql.query(
        `SELECT b.affiliate_id, b.bound_to, b.unbound_by, d.affiliate_id AS ended_by
         FROM agency.sub_affiliate_bindings b LEFT JOIN agency.agency_designations d ON d.id = b.ended_by_designation_id
         WHERE b.master_id = $1 ORDER BY b.affiliate_id = $2 DESC`,
        [old.id, sub.id],
      );
      expect(rows).toEqual([
        { affiliate_id: sub.id, bound_to: designatedAt, unbound_by: actor.apiKeyId, ended_by: sub.id },
        { affiliate_id: sibling.id, bound_to: null, unbound_by: null, ended_by: null },
      ]);
      expect(await harness.domain.details.describeOne(sub)).toMatchObject({ isMaster: true, master: null });
      expect(await masters().get(projectId, old.id)).toMatchObject({ subAffiliatesCount: 1 });
      // The old master keeps it among its former sub-affiliates (what it brought while bound stays there).
      const listed = await masters().listSubAffiliates(projectId, old.id, {}, { page: 1, pageSize: 25, offset: 0 });
      expect(listed.records.map((record) => [record.id, record.bound])).toEqual(
        expect.arrayContaining([
          [sub.id, false],
          [sibling.id, true],
        ]),
      );
      // Now a master: it takes sub-affiliates of its own, and can never be bound again.
      await masters().bind(projectId, sub.id, [userOf(await newAffiliate(harness, projectId))], actor);
      await expect(masters().bind(projectId, old.id, [userOf(sub)], actor)).rejects.toMatchObject({ code: 'IS_MASTER' });
    });

    it('designates a sub-affiliate whose binding an unbinding or its master’s removal closes at the same moment: the binding closes once', async () => {
      const projectId = newProject();
      for (let round = 0; round < 6; round += 1) {
        const old = await newAffiliate(harness, projectId);
        await masters().designate(projectId, userOf(old), 100, actor);
        const sub = await newAffiliate(harness, projectId);
        await masters().bind(projectId, old.id, [userOf(sub)], actor);
        const [designated, other] = await Promise.allSettled([
          masters().designate(projectId, userOf(sub), 200, actor),
          round % 2 === 0 ? masters().unbind(projectId, old.id, userOf(sub), actor) : masters().remove(projectId, old.id, actor),
        ]);
        expect(designated.status).toBe('fulfilled');
        const { rows } = await harness.sql.query(
          'SELECT count(*)::int AS bindings, count(*) FILTER (WHERE bound_to IS NULL)::int AS open, count(ended_by_designation_id)::int AS by_designation FROM agency.sub_affiliate_bindings WHERE affiliate_id = $1',
          [sub.id],
        );
        expect(rows[0]).toMatchObject({ bindings: 1, open: 0 });
        // The designation names the binding only when it closed it itself; an unbinding that found it closed says so.
        const unboundFrom = designated.status === 'fulfilled' ? designated.value.unboundFrom : undefined;
        expect(rows[0].by_designation).toBe(unboundFrom ? 1 : 0);
        if (round % 2 === 0) {
          // The unbinding found it closed by the designation (404), or closed it first.
          if (other.status === 'rejected') expect(other.reason).toMatchObject({ code: 'SUB_AFFILIATE_NOT_FOUND' });
          expect(other.status === 'rejected').toBe(unboundFrom !== null);
        } else {
          // The removal released it, or found it released by the designation.
          expect(other).toEqual({ status: 'fulfilled', value: { released: unboundFrom ? 0 : 1 } });
        }
        expect(await harness.domain.details.describeOne(sub)).toMatchObject({ isMaster: true, master: null });
      }
    });

    it('designates once when two admins designate the same affiliate at the same moment', async () => {
      const projectId = newProject();
      const affiliate = await newAffiliate(harness, projectId);
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => masters().designate(projectId, userOf(affiliate), 300, actor)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason.code)).toEqual(
        Array(4).fill('ALREADY_MASTER'),
      );
      const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.agency_designations WHERE affiliate_id = $1', [affiliate.id]);
      expect(rows[0].n).toBe(1);
    });

    it('answers AGENCY_NOT_FOUND for an id that is no master of the project (an affiliate, another project’s master, no UUID)', async () => {
      const projectId = newProject();
      const plain = await newAffiliate(harness, projectId);
      const otherProject = newProject();
      const foreign = await newAffiliate(harness, otherProject);
      await masters().designate(otherProject, userOf(foreign), 100, actor);
      for (const id of [plain.id, foreign.id, 'not-a-uuid']) {
        await expect(masters().get(projectId, id)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND', kind: 'not_found' });
        await expect(masters().updateSpread(projectId, id, 10, actor)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
        await expect(masters().remove(projectId, id, actor)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
        await expect(masters().bind(projectId, id, [newUser()], actor)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
      }
    });
  });

  describe('spread changes', () => {
    it('closes the spread in force and opens the next at the same instant; the same spread again changes nothing', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      harness.clock.advance(HOUR);
      await masters().updateSpread(projectId, master.id, 150, actor);
      harness.clock.advance(HOUR);
      const unchanged = await masters().updateSpread(projectId, master.id, 150, actor);
      expect(unchanged.spreadHistory).toEqual([
        { spreadBps: 150, validFrom: new Date(Date.parse(START) + HOUR), validTo: null },
        { spreadBps: 100, validFrom: new Date(START), validTo: new Date(Date.parse(START) + HOUR) },
      ]);
      await expect(masters().updateSpread(projectId, master.id, 10_001, actor)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    });
  });

  describe('binding sub-affiliates', () => {
    it('binds affiliates to a master, counts them, and shows the master on each', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      const subs = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      const results = await masters().bind(projectId, master.id, subs.map(userOf), actor);
      expect(results).toEqual(subs.map((sub) => ({ affiliate: { id: sub.id, user: sub.user }, bound: true })));
      expect((await masters().get(projectId, master.id)).subAffiliatesCount).toBe(2);
      const described = await harness.domain.details.describe(subs);
      expect(described.map((view) => view.master)).toEqual(subs.map(() => ({ id: master.id, user: master.user })));
      expect(described.map((view) => view.isMaster)).toEqual([false, false]);
    });

    it('binding one already bound to this master again changes nothing (bound: false, no second period)', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      const sub = await newAffiliate(harness, projectId);
      await masters().bind(projectId, master.id, [userOf(sub)], actor);
      harness.clock.advance(HOUR);
      expect(await masters().bind(projectId, master.id, [userOf(sub), userOf(sub)], actor)).toEqual([
        { affiliate: { id: sub.id, user: sub.user }, bound: false },
        { affiliate: { id: sub.id, user: sub.user }, bound: false },
      ]);
      expect(await bindingsOf(master.id)).toEqual([expect.objectContaining({ affiliate_id: sub.id, bound_from: new Date(START), bound_to: null })]);
    });

    it('is all or nothing: one affiliate bound elsewhere refuses the request (409 ALREADY_BOUND naming it) and binds none of the others', async () => {
      const projectId = newProject();
      const [first, second] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      await masters().designate(projectId, userOf(first), 100, actor);
      await masters().designate(projectId, userOf(second), 100, actor);
      const taken = await newAffiliate(harness, projectId);
      await masters().bind(projectId, first.id, [userOf(taken)], actor);
      const free = await newAffiliate(harness, projectId);
      await expect(masters().bind(projectId, second.id, [userOf(free), userOf(taken)], actor)).rejects.toMatchObject({
        code: 'ALREADY_BOUND',
        kind: 'conflict',
        details: [{ field: 'user_identifiers[1]', reason: expect.stringContaining(first.id) }],
      });
      expect(await bindingsOf(second.id)).toEqual([]);
      expect((await harness.domain.details.describeOne(free)).master).toBeNull();
    });

    it('never binds a master: neither another master nor the master itself', async () => {
      const projectId = newProject();
      const [master, otherMaster] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      await masters().designate(projectId, userOf(master), 100, actor);
      await masters().designate(projectId, userOf(otherMaster), 100, actor);
      await expect(masters().bind(projectId, master.id, [userOf(otherMaster), userOf(master)], actor)).rejects.toMatchObject({
        code: 'IS_MASTER',
        kind: 'conflict',
        details: [
          { field: 'user_identifiers[0]', reason: expect.stringContaining('never a sub-affiliate') },
          { field: 'user_identifiers[1]', reason: expect.stringContaining('never a sub-affiliate') },
        ],
      });
      expect(await bindingsOf(master.id)).toEqual([]);
    });

    it('refuses users who are no affiliates of the project (404, each named), binding nobody', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      const sub = await newAffiliate(harness, projectId);
      const foreign = await newAffiliate(harness, newProject());
      await expect(masters().bind(projectId, master.id, [userOf(sub), newUser(), userOf(foreign)], actor)).rejects.toMatchObject({
        code: 'AFFILIATE_NOT_FOUND',
        kind: 'not_found',
        details: [
          { field: 'user_identifiers[1]', reason: 'is not an affiliate of this project' },
          { field: 'user_identifiers[2]', reason: 'is not an affiliate of this project' },
        ],
      });
      expect(await bindingsOf(master.id)).toEqual([]);
    });

    it('refuses an empty list, more than 100 users and invalid identifiers, naming the field', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      await expect(masters().bind(projectId, master.id, [], actor)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'user_identifiers' }],
      });
      await expect(masters().bind(projectId, master.id, Array.from({ length: 101 }, newUser), actor)).rejects.toMatchObject({
        code: 'TOO_MANY_USERS',
        kind: 'resource_exhausted',
      });
      await expect(
        masters().bind(projectId, master.id, [newUser(), { identifier: '0x12', identifierType: 'evm_address' }], actor),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'user_identifiers[1]', reason: expect.stringContaining('evm_address') }],
      });
      await expect(masters().bind(projectId, master.id, [{ identifier: 'x', identifierType: 'fax' }], actor)).rejects.toMatchObject({
        details: [{ field: 'user_identifier_type' }],
      });
    });

    it('binds an affiliate to exactly one master when two masters bind it at the same moment', async () => {
      const projectId = newProject();
      const candidates = await Promise.all(Array.from({ length: 4 }, () => newAffiliate(harness, projectId)));
      for (const master of candidates) await masters().designate(projectId, userOf(master), 100, actor);
      const sub = await newAffiliate(harness, projectId);
      const outcomes = await Promise.allSettled(candidates.map((master) => masters().bind(projectId, master.id, [userOf(sub)], actor)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((item) => item.status === 'rejected')) {
        expect(outcome.reason).toMatchObject({ code: 'ALREADY_BOUND' });
      }
      const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.sub_affiliate_bindings WHERE affiliate_id = $1', [sub.id]);
      expect(rows[0].n).toBe(1);
    });

    it('never leaves a master bound while a designation races its binding: bound first, the designation unbinds it; designated first, the binding is refused', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      for (let round = 0; round < 5; round += 1) {
        const contested = await newAffiliate(harness, projectId);
        const [bound, designated] = await Promise.allSettled([
          masters().bind(projectId, master.id, [userOf(contested)], actor),
          masters().designate(projectId, userOf(contested), 100, actor),
        ]);
        expect(designated.status).toBe('fulfilled');
        const unboundFrom = designated.status === 'fulfilled' ? designated.value.unboundFrom : undefined;
        if (bound.status === 'fulfilled') expect(unboundFrom?.id).toBe(master.id);
        else expect([bound.reason.code, unboundFrom]).toEqual(['IS_MASTER', null]);
        const view = await harness.domain.details.describeOne(contested);
        expect(view).toMatchObject({ isMaster: true, master: null });
      }
    });
  });

  describe('unbinding and removal', () => {
    it('unbinds: the binding closes with its end, the affiliate may then join another master', async () => {
      const projectId = newProject();
      const [first, second] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      await masters().designate(projectId, userOf(first), 100, actor);
      await masters().designate(projectId, userOf(second), 100, actor);
      const sub = await newAffiliate(harness, projectId);
      await masters().bind(projectId, first.id, [userOf(sub)], actor);
      harness.clock.advance(HOUR);
      await masters().unbind(projectId, first.id, userOf(sub), actor);
      expect(await bindingsOf(first.id)).toEqual([
        {
          affiliate_id: sub.id,
          bound_from: new Date(START),
          bound_to: new Date(Date.parse(START) + HOUR),
          bound_by: actor.apiKeyId,
          unbound_by: actor.apiKeyId,
        },
      ]);
      await masters().bind(projectId, second.id, [userOf(sub)], actor);
      expect((await harness.domain.details.describeOne(sub)).master?.id).toBe(second.id);
      await expect(masters().unbind(projectId, first.id, userOf(sub), actor)).rejects.toMatchObject({
        code: 'SUB_AFFILIATE_NOT_FOUND',
        kind: 'not_found',
      });
      await expect(masters().unbind(projectId, sub.id, userOf(sub), actor)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
    });

    it('removes master status: sub-affiliates become regular, bindings close with `to`, and every period stays', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 400, actor);
      const subs = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      await masters().bind(projectId, master.id, subs.map(userOf), actor);
      harness.clock.advance(2 * HOUR);
      const removedAt = harness.clock.now();
      expect(await masters().remove(projectId, master.id, actor)).toEqual({ released: 2 });

      expect(await bindingsOf(master.id)).toEqual(
        subs.map((sub) => expect.objectContaining({ affiliate_id: sub.id, bound_from: new Date(START), bound_to: removedAt })),
      );
      const { rows } = await harness.sql.query('SELECT designated_at, removed_at FROM agency.agency_designations WHERE affiliate_id = $1', [
        master.id,
      ]);
      expect(rows).toEqual([{ designated_at: new Date(START), removed_at: removedAt }]);
      const spreads = await harness.sql.query('SELECT spread_bps, valid_from, valid_to FROM agency.agency_spreads WHERE master_id = $1', [master.id]);
      expect(spreads.rows).toEqual([{ spread_bps: 400, valid_from: new Date(START), valid_to: removedAt }]);

      const described = await harness.domain.details.describe([master, ...subs]);
      expect(described.map((view) => [view.isMaster, view.master])).toEqual([
        [false, null],
        [false, null],
        [false, null],
      ]);
      await expect(masters().get(projectId, master.id)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
      expect((await masters().list(projectId, { page: 1, pageSize: 25, offset: 0 })).total).toBe(0);

      // Designated again, it starts afresh: no sub-affiliate comes back, the spread history is the new one's.
      harness.clock.advance(HOUR);
      const again = await masters().designate(projectId, userOf(master), 50, actor);
      expect(again).toMatchObject({ subAffiliatesCount: 0, spreadHistory: [{ spreadBps: 50, validTo: null }] });
      // ...and the former sub-affiliates may now be bound elsewhere, or be designated themselves.
      await masters().designate(projectId, userOf(subs[0]!), 10, actor);
    });
  });

  describe('sub-affiliate lists', () => {
    it('lists sub-affiliates newest binding first (or by name, or by volume), former ones as bound: false unless bound=true', async () => {
      const projectId = newProject();
      const master = await newAffiliate(harness, projectId);
      await masters().designate(projectId, userOf(master), 100, actor);
      const names = ['Carol', 'alice', 'Bob'];
      const subs = [];
      for (const name of names) {
        const sub = await newAffiliate(harness, projectId, name);
        subs.push(sub);
        await masters().bind(projectId, master.id, [userOf(sub)], actor);
        harness.clock.advance(1_000);
      }
      await masters().unbind(projectId, master.id, userOf(subs[1]!), actor);
      const page = { page: 1, pageSize: 25, offset: 0 };
      type Sort = 'bound_at' | 'name' | 'referred_volume' | undefined;
      const namesOf = async (sort: Sort, bound?: boolean) =>
        (await masters().listSubAffiliates(projectId, master.id, { sort, bound }, page)).records.map((record) => record.name);
      expect(await namesOf(undefined, true)).toEqual(['Bob', 'Carol']);
      expect(await namesOf(undefined)).toEqual(['Bob', 'alice', 'Carol']);
      expect(await namesOf(undefined, false)).toEqual(['alice']);
      // No volume yet: every referred volume is 0, ties newest binding first.
      expect(await namesOf('referred_volume')).toEqual(['Bob', 'alice', 'Carol']);
      expect(await namesOf('name')).toEqual(['alice', 'Bob', 'Carol']);
      expect((await masters().listSubAffiliates(projectId, master.id, { sort: 'name', order: 'desc' }, page)).records.map((r) => r.name)).toEqual([
        'Carol',
        'Bob',
        'alice',
      ]);
      const firstPage = await masters().listSubAffiliates(
        projectId,
        master.id,
        { sort: 'bound_at', bound: true },
        { page: 1, pageSize: 1, offset: 0 },
      );
      expect(firstPage).toEqual({
        records: [
          expect.objectContaining({
            name: 'Bob',
            bound: true,
            unboundAt: null,
            boundAt: new Date(Date.parse(START) + 2_000),
            referredVolumeUsd: '0',
          }),
        ],
        total: 2,
      });
      const former = (await masters().listSubAffiliates(projectId, master.id, { bound: false }, page)).records[0];
      expect(former).toMatchObject({ name: 'alice', bound: false, unboundAt: new Date(Date.parse(START) + 3_000) });
    });
  });
});
