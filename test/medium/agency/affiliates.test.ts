import { REFERRAL_CODE_RULES } from '../../../services/rules/contract-limits';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newCode, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';
const invalid = (field: string) => ({
  kind: 'invalid_argument',
  code: 'VALIDATION_FAILED',
  details: expect.arrayContaining([expect.objectContaining({ field })]),
});

/** Affiliates and their codes: creation, the code rules, status changes and the list filters. */
describe('affiliates (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain({});
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const affiliates = () => harness.domain.affiliates;

  describe('creation', () => {
    it('creates an active affiliate with its first code, the identifier canonical and the region upper case', async () => {
      const projectId = newProject();
      const user = newUser();
      const created = await affiliates().create(
        projectId,
        { ...user, identifier: user.identifier.toUpperCase().replace('0X', '0x') },
        {
          name: '  Alice  ',
          region: 'de',
          code: 'Alice_2026',
        },
      );
      expect(created).toMatchObject({
        user,
        name: 'Alice',
        region: 'DE',
        status: 'active',
        codes: [{ code: 'Alice_2026', uses: 0n, createdAt: new Date(START), userRebateRateBps: null }],
        joinedAt: new Date(START),
        suspendedAt: null,
      });
    });

    it('allows one affiliate per user per project, and the same user in another project', async () => {
      const projectId = newProject();
      const user = newUser();
      await affiliates().create(projectId, user, { name: 'Alice' });
      await expect(affiliates().create(projectId, user, { name: 'Alice again' })).rejects.toMatchObject({
        code: 'AFFILIATE_EXISTS',
        kind: 'already_exists',
      });
      await expect(affiliates().create(newProject(), user, { name: 'Alice elsewhere' })).resolves.toMatchObject({ name: 'Alice elsewhere' });
    });

    it('creates nothing when its code is taken, in any letter case', async () => {
      const projectId = newProject();
      await affiliates().create(projectId, newUser(), { name: 'Alice', code: 'SummerDeal' });
      const late = newUser();
      await expect(affiliates().create(projectId, late, { name: 'Bob', code: 'summerdeal' })).rejects.toMatchObject({
        code: 'CODE_IN_USE',
        kind: 'already_exists',
      });
      await expect(affiliates().get(projectId, late)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    });

    it.each([
      ['an empty name', { name: '   ' }, 'name'],
      ['a name past 200 characters', { name: 'x'.repeat(201) }, 'name'],
      ['a region that is no country', { name: 'A', region: 'XX' }, 'region'],
      ['a code of two characters', { name: 'A', code: 'ab' }, 'code'],
      ['a code of 33 characters', { name: 'A', code: 'a'.repeat(33) }, 'code'],
      ['a code with a space', { name: 'A', code: 'summer deal' }, 'code'],
      ['a code with a dot', { name: 'A', code: 'summer.deal' }, 'code'],
      ['a code with a non-ASCII letter', { name: 'A', code: 'summerdeál' }, 'code'],
    ])('refuses %s, naming the field, and stores nothing', async (_case, input, field) => {
      const projectId = newProject();
      const user = newUser();
      await expect(affiliates().create(projectId, user, input)).rejects.toMatchObject(invalid(field));
      await expect(affiliates().get(projectId, user)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    });

    it('refuses an identifier that is not valid for its type, and an unknown type', async () => {
      const projectId = newProject();
      await expect(affiliates().create(projectId, { identifier: '0x123', identifierType: 'evm_address' }, { name: 'A' })).rejects.toMatchObject(
        invalid('user.identifier'),
      );
      await expect(affiliates().create(projectId, { identifier: 'a@b.co', identifierType: 'fax' }, { name: 'A' })).rejects.toMatchObject(
        invalid('user.identifier_type'),
      );
    });

    it('accepts codes of exactly 3 and 32 characters of every allowed kind', async () => {
      const projectId = newProject();
      await expect(affiliates().create(projectId, newUser(), { name: 'A', code: 'a-_' })).resolves.toMatchObject({ codes: [{ code: 'a-_' }] });
      const long = `Az09_-${'q'.repeat(26)}`;
      await expect(affiliates().create(projectId, newUser(), { name: 'B', code: long })).resolves.toMatchObject({ codes: [{ code: long }] });
    });
  });

  describe('codes', () => {
    it('adds codes oldest first, up to 20 per affiliate', async () => {
      const projectId = newProject();
      const { user, code } = await newAffiliate(harness, projectId);
      for (let n = 2; n <= REFERRAL_CODE_RULES.maxPerAffiliate; n += 1) {
        harness.clock.advance(1_000);
        await affiliates().addCode(projectId, user, `extra_${n}`);
      }
      const full = await affiliates().get(projectId, user);
      expect(full.codes.map((held) => held.code)).toEqual([code, ...Array.from({ length: 19 }, (_, i) => `extra_${i + 2}`)]);
      await expect(affiliates().addCode(projectId, user, 'one_too_many')).rejects.toMatchObject({ code: 'CODE_LIMIT_REACHED', kind: 'conflict' });
      expect((await affiliates().get(projectId, user)).codes).toHaveLength(20);
    });

    it('keeps the limit under concurrent adds', async () => {
      const projectId = newProject();
      const { user } = await newAffiliate(harness, projectId);
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, n) => affiliates().addCode(projectId, user, `race_${n}`)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(19);
      expect(results.filter((result) => result.status === 'rejected').map((result) => result.reason.code)).toEqual(
        Array(11).fill('CODE_LIMIT_REACHED'),
      );
      expect((await affiliates().get(projectId, user)).codes).toHaveLength(20);
    });

    it('refuses a code another affiliate of the project holds in any letter case, but not one of another project', async () => {
      const projectId = newProject();
      await affiliates().create(projectId, newUser(), { name: 'Alice', code: 'CamelCode' });
      const { user } = await newAffiliate(harness, projectId);
      await expect(affiliates().addCode(projectId, user, 'CAMELCODE')).rejects.toMatchObject({ code: 'CODE_IN_USE' });
      const other = newProject();
      const elsewhere = newUser();
      await affiliates().create(other, elsewhere, { name: 'Carol' });
      await expect(affiliates().addCode(other, elsewhere, 'camelcode')).resolves.toMatchObject({ codes: [{ code: 'camelcode' }] });
    });

    it('refuses a code for a user who is no affiliate', async () => {
      await expect(affiliates().addCode(newProject(), newUser(), newCode())).rejects.toMatchObject({
        code: 'AFFILIATE_NOT_FOUND',
        kind: 'not_found',
      });
    });

    it('answers whether a code is free (nobody holds it) and available (free and valid)', async () => {
      const projectId = newProject();
      await affiliates().create(projectId, newUser(), { name: 'Alice', code: 'Taken_1' });
      expect(await affiliates().checkCode(projectId, 'taken_1')).toEqual({ free: false, available: false });
      expect(await affiliates().checkCode(projectId, 'open_1')).toEqual({ free: true, available: true });
      expect(await affiliates().checkCode(projectId, 'no')).toEqual({ free: true, available: false });
      expect(await affiliates().checkCode(projectId, 'has space')).toEqual({ free: true, available: false });
      expect(await affiliates().checkCode(newProject(), 'Taken_1')).toEqual({ free: true, available: true });
    });
  });

  describe('status', () => {
    it('suspends with a reason and reactivates, each once, keeping every period in the history', async () => {
      const projectId = newProject();
      const { user, affiliate } = await newAffiliate(harness, projectId);
      harness.clock.set('2026-12-01T00:00:00.000Z');
      const suspended = await affiliates().suspend(projectId, user, ' Fraudulent traffic ', 'key-1');
      expect(suspended).toMatchObject({
        status: 'suspended',
        suspendedAt: new Date('2026-12-01T00:00:00.000Z'),
        suspensionReason: 'Fraudulent traffic',
      });
      await expect(affiliates().suspend(projectId, user, 'again', 'key-1')).rejects.toMatchObject({
        code: 'AFFILIATE_ALREADY_SUSPENDED',
        kind: 'conflict',
      });
      harness.clock.set('2026-12-05T00:00:00.000Z');
      expect(await affiliates().reactivate(projectId, user, 'key-2')).toMatchObject({ status: 'active', suspendedAt: null, suspensionReason: null });
      await expect(affiliates().reactivate(projectId, user, 'key-2')).rejects.toMatchObject({ code: 'AFFILIATE_NOT_SUSPENDED', kind: 'conflict' });
      harness.clock.set('2026-12-09T00:00:00.000Z');
      await affiliates().suspend(projectId, user, 'Second time', 'key-1');

      const { rows } = await harness.sql.query(
        'SELECT reason, suspended_at, suspended_by, reactivated_at, reactivated_by FROM agency.affiliate_suspensions WHERE affiliate_id = $1 ORDER BY suspended_at',
        [affiliate.id],
      );
      expect(rows).toEqual([
        {
          reason: 'Fraudulent traffic',
          suspended_at: new Date('2026-12-01T00:00:00.000Z'),
          suspended_by: 'key-1',
          reactivated_at: new Date('2026-12-05T00:00:00.000Z'),
          reactivated_by: 'key-2',
        },
        {
          reason: 'Second time',
          suspended_at: new Date('2026-12-09T00:00:00.000Z'),
          suspended_by: 'key-1',
          reactivated_at: null,
          reactivated_by: null,
        },
      ]);
    });

    it('opens one period however many suspensions race', async () => {
      const projectId = newProject();
      const { user, affiliate } = await newAffiliate(harness, projectId);
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => affiliates().suspend(projectId, user, 'race', null)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const { rows } = await harness.sql.query('SELECT count(*)::int AS n FROM agency.affiliate_suspensions WHERE affiliate_id = $1', [affiliate.id]);
      expect(rows[0].n).toBe(1);
    });

    it('refuses a suspension without a reason, and of a user who is no affiliate', async () => {
      const projectId = newProject();
      const { user } = await newAffiliate(harness, projectId);
      await expect(affiliates().suspend(projectId, user, '  ', null)).rejects.toMatchObject(invalid('reason'));
      await expect(affiliates().suspend(projectId, newUser(), 'why', null)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
      expect((await affiliates().get(projectId, user)).status).toBe('active');
    });
  });

  describe('update', () => {
    it('changes the fields the mask names only, and clears the region with null', async () => {
      const projectId = newProject();
      const user = newUser();
      await affiliates().create(projectId, user, { name: 'Alice', region: 'US' });
      harness.clock.advance(60_000);
      expect(await affiliates().update(projectId, user, { mask: ['name'], name: 'Alice B.' })).toMatchObject({
        name: 'Alice B.',
        region: 'US',
        updatedAt: harness.clock.now(),
      });
      expect(await affiliates().update(projectId, user, { mask: ['region'], region: null })).toMatchObject({ name: 'Alice B.', region: null });
      await expect(affiliates().update(projectId, user, { mask: ['status'] })).rejects.toMatchObject(invalid('update_mask'));
      await expect(affiliates().update(projectId, newUser(), { mask: ['name'], name: 'X' })).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    });
  });

  describe('the list', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = newProject();
      const people = [
        ['Alice Anders', 'US', 'active'],
        ['alfred Brown', 'DE', 'suspended'],
        ['Bob Carter', 'US', 'active'],
        ['Carol Alder', 'BR', 'active'],
      ] as const;
      for (const [index, [name, region, status]] of people.entries()) {
        harness.clock.set(new Date(Date.parse(START) + index * 60_000));
        const user = { identifier: `0x${String(index + 1).repeat(40)}`, identifierType: 'evm_address' as const };
        await affiliates().create(projectId, user, { name, region });
        if (status === 'suspended') await affiliates().suspend(projectId, user, 'test', null);
      }
    });
    const names = async (filters: Parameters<AgencyHarness['domain']['affiliates']['list']>[1], page = { page: 1, pageSize: 25, offset: 0 }) => {
      const { records, total } = await affiliates().list(projectId, filters, page);
      return { names: records.map((record) => record.name), total };
    };

    it('lists newest first, with the total, page by page', async () => {
      expect(await names({})).toEqual({ names: ['Carol Alder', 'Bob Carter', 'alfred Brown', 'Alice Anders'], total: 4 });
      expect(await names({}, { page: 2, pageSize: 3, offset: 3 })).toEqual({ names: ['Alice Anders'], total: 4 });
    });

    it('filters by status, by region (any case), and both', async () => {
      expect(await names({ status: 'suspended' })).toEqual({ names: ['alfred Brown'], total: 1 });
      expect(await names({ region: 'us' })).toEqual({ names: ['Bob Carter', 'Alice Anders'], total: 2 });
      expect(await names({ region: 'US', status: 'active' })).toEqual({ names: ['Bob Carter', 'Alice Anders'], total: 2 });
    });

    it('finds by a prefix of the name (any case) or of the identifier, never by a substring, and takes LIKE wildcards literally', async () => {
      expect(await names({ q: 'al' })).toEqual({ names: ['alfred Brown', 'Alice Anders'], total: 2 });
      expect(await names({ q: 'ALI' })).toEqual({ names: ['Alice Anders'], total: 1 });
      expect(await names({ q: '0x333' })).toEqual({ names: ['Bob Carter'], total: 1 });
      expect(await names({ q: 'Carter' })).toEqual({ names: [], total: 0 });
      expect(await names({ q: '%' })).toEqual({ names: [], total: 0 });
      expect(await names({ q: '_' })).toEqual({ names: [], total: 0 });
    });

    it('refuses a region filter that is no country', async () => {
      await expect(affiliates().list(projectId, { region: 'ZZ' }, { page: 1, pageSize: 25, offset: 0 })).rejects.toMatchObject(invalid('region'));
    });
  });
});
