import { randomUUID } from 'node:crypto';
import { toPage } from '../../../services/rules/pagination';
import type { CurrencyInput } from '../../../services/claim/domain/currency.service';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { newProject, termsInput } from './fixtures';

/** Currencies (one per chain and address) and payout terms (one set per conversion name): their rules. */
describe('currencies and payout terms (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());

  const token = (fields: Partial<CurrencyInput> = {}): CurrencyInput => ({
    chainId: '8453',
    address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    name: ' USDC ',
    decimals: 6,
    type: 'erc20',
    ...fields,
  });

  describe('currencies', () => {
    it('stores an erc20 currency with its address lowercase and its name trimmed, and lists the project’s oldest first', async () => {
      const projectId = randomUUID();
      const usdc = await harness.domain.currencies.create(projectId, token());
      harness.clock.advance(1_000);
      const eth = await harness.domain.currencies.create(
        projectId,
        token({ chainId: '1', address: '0x0000000000000000000000000000000000000000', name: 'ETH', decimals: 18, type: 'native' }),
      );
      expect(usdc).toMatchObject({ chainId: 8453n, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', name: 'USDC', decimals: 6, type: 'erc20' });
      const { records, total } = await harness.domain.currencies.list(projectId, toPage());
      expect(records.map((currency) => currency.id)).toEqual([usdc.id, eth.id]);
      expect(total).toBe(2);
      expect((await harness.domain.currencies.list(randomUUID(), toPage())).total).toBe(0);
    });

    it('refuses the same address on the same chain twice (CURRENCY_EXISTS), in any letter case, but not on another chain or project', async () => {
      const projectId = randomUUID();
      await harness.domain.currencies.create(projectId, token());
      await expect(
        harness.domain.currencies.create(projectId, token({ address: token().address!.toUpperCase().replace('0X', '0x') })),
      ).rejects.toMatchObject({
        kind: 'already_exists',
        code: 'CURRENCY_EXISTS',
      });
      await harness.domain.currencies.create(projectId, token({ chainId: '1' }));
      await harness.domain.currencies.create(randomUUID(), token());
    });

    it.each([
      ['a chain id of 0', { chainId: '0' }, 'chain_id'],
      ['a chain id past int64', { chainId: '9223372036854775808' }, 'chain_id'],
      ['a short address', { address: '0x1234' }, 'address'],
      ['a native currency not at 0x0…0', { type: 'native' as const }, 'address'],
      ['an erc20 currency at 0x0…0', { address: '0x0000000000000000000000000000000000000000' }, 'address'],
      ['78 decimals', { decimals: 78 }, 'decimals'],
      ['negative decimals', { decimals: -1 }, 'decimals'],
      ['an empty name', { name: '   ' }, 'name'],
      ['a name of 101 characters', { name: 'x'.repeat(101) }, 'name'],
      ['no type', { type: undefined }, 'type'],
    ])('refuses %s, naming the field', async (_name, fields, field) => {
      const projectId = randomUUID();
      await expect(harness.domain.currencies.create(projectId, token(fields))).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field })],
      });
      expect((await harness.domain.currencies.list(projectId, toPage())).total).toBe(0);
    });
  });

  describe('payout terms', () => {
    it('creates terms, answers them, and replaces them whole (tiers too) on the next put', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const gold = randomUUID();
      const silver = randomUUID();
      const created = await harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, {
          endUser: { fixed: '100' },
          affiliate: { bps: 250 },
          tiers: [
            { audienceId: gold, affiliate: { bps: 500 } },
            { audienceId: silver, affiliate: { fixed: '75' } },
          ],
        }),
      );
      expect(created).toMatchObject({
        created: true,
        record: {
          conversionName: 'trade',
          currencyId,
          endUser: { fixed: 100n },
          affiliate: { bps: 250 },
          tiers: [
            { audienceId: gold, affiliate: { bps: 500 } },
            { audienceId: silver, affiliate: { fixed: 75n } },
          ],
        },
      });
      harness.clock.advance(5_000);
      const replaced = await harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, { affiliate: { fixed: '1' }, tiers: [{ audienceId: silver, affiliate: { bps: 1 } }] }),
      );
      expect(replaced.created).toBe(false);
      expect(await harness.domain.terms.get(projectId, 'trade')).toEqual({
        conversionName: 'trade',
        currencyId,
        endUser: null,
        affiliate: { fixed: 1n },
        upline: {},
        tiers: [{ audienceId: silver, affiliate: { bps: 1 }, upline: {} }],
        endUserAllowlistAudienceId: null,
        affiliateAllowlistAudienceId: null,
        holdDays: 0,
        requireApproval: false,
        caps: { perConversion: null, perEndUser: null, perAffiliateWindow: null },
        createdAt: created.record.createdAt,
        updatedAt: harness.clock.now(),
      });
    });

    it('lists terms by name and deletes them with their tiers; a deleted or unknown name is not found', async () => {
      const { projectId, currencyId } = await newProject(harness);
      for (const name of ['swap', 'deposit', 'trade'])
        await harness.domain.terms.put(projectId, name, termsInput(currencyId, { tiers: [{ audienceId: randomUUID(), affiliate: { bps: 1 } }] }));
      const listed = await harness.domain.terms.list(projectId, toPage({ page: 1, pageSize: 2 }));
      expect(listed.records.map((terms) => terms.conversionName)).toEqual(['deposit', 'swap']);
      expect(listed.total).toBe(3);
      await harness.domain.terms.delete(projectId, 'swap');
      await expect(harness.domain.terms.get(projectId, 'swap')).rejects.toMatchObject({ kind: 'not_found', code: 'PAYOUT_TERMS_NOT_FOUND' });
      await expect(harness.domain.terms.delete(projectId, 'swap')).rejects.toMatchObject({ code: 'PAYOUT_TERMS_NOT_FOUND' });
      const tiers = await harness.sql.query('SELECT count(*)::int AS n FROM claim.payout_term_tiers WHERE project_id = $1 AND conversion_name = $2', [
        projectId,
        'swap',
      ]);
      expect(tiers.rows[0].n).toBe(0);
    });

    it('refuses a currency of another project (CURRENCY_NOT_FOUND) and stores nothing', async () => {
      const { projectId } = await newProject(harness);
      const other = await newProject(harness);
      await expect(harness.domain.terms.put(projectId, 'trade', termsInput(other.currencyId))).rejects.toMatchObject({
        kind: 'invalid_argument',
        code: 'CURRENCY_NOT_FOUND',
        details: [{ field: 'currency_id' }],
      });
      await expect(harness.domain.terms.get(projectId, 'trade')).rejects.toMatchObject({ code: 'PAYOUT_TERMS_NOT_FOUND' });
    });

    it.each([
      ['an empty conversion name', '  ', {}, 'conversion_name'],
      ['a reward with fixed and bps', 'trade', { endUser: { fixed: '1', bps: 1 } }, 'end_user'],
      ['a reward with neither', 'trade', { affiliate: {} }, 'affiliate'],
      ['bps past 10,000', 'trade', { affiliate: { bps: 10_001 } }, 'affiliate.bps'],
      ['a negative fixed amount', 'trade', { endUser: { fixed: '-1' } }, 'end_user.fixed'],
      ['a tier without its reward', 'trade', { tiers: [{ audienceId: randomUUID(), affiliate: undefined }] }, 'tiers[0].affiliate'],
      ['a tier of no audience id', 'trade', { tiers: [{ audienceId: 'gold', affiliate: { bps: 1 } }] }, 'tiers[0].audience_id'],
      [
        'two tiers of one audience',
        'trade',
        {
          tiers: ((id) => [
            { audienceId: id, affiliate: { bps: 1 } },
            { audienceId: id, affiliate: { bps: 2 } },
          ])(randomUUID()),
        },
        'tiers[1].audience_id',
      ],
      ['101 tiers', 'trade', { tiers: Array.from({ length: 101 }, () => ({ audienceId: randomUUID(), affiliate: { bps: 1 } })) }, 'tiers'],
    ])('refuses %s, naming the field', async (_name, conversionName, fields, field) => {
      const { projectId, currencyId } = await newProject(harness);
      await expect(harness.domain.terms.put(projectId, conversionName, termsInput(currencyId, fields))).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([expect.objectContaining({ field })]),
      });
      expect((await harness.domain.terms.list(projectId, toPage())).total).toBe(0);
    });

    it('refuses fixed rewards past 2^256 − 1 (AMOUNT_OUT_OF_RANGE) wherever they are, and takes 2^256 − 1 itself', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const past = (2n ** 256n).toString();
      await expect(
        harness.domain.terms.put(
          projectId,
          'trade',
          termsInput(currencyId, { endUser: { fixed: past }, tiers: [{ audienceId: randomUUID(), affiliate: { fixed: '9'.repeat(78) } }] }),
        ),
      ).rejects.toMatchObject({
        kind: 'invalid_argument',
        code: 'AMOUNT_OUT_OF_RANGE',
        details: [
          { field: 'end_user.fixed', reason: expect.stringContaining('at most 2^256 − 1') },
          { field: 'tiers[0].affiliate.fixed', reason: expect.stringContaining('at most 2^256 − 1') },
        ],
      });
      // With another problem besides, the answer is VALIDATION_FAILED listing both.
      await expect(
        harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { fixed: past }, affiliate: { bps: 10_001 } })),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'end_user.fixed' }, { field: 'affiliate.bps' }],
      });
      expect((await harness.domain.terms.list(projectId, toPage())).total).toBe(0);
      const max = 2n ** 256n - 1n;
      const { record } = await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { affiliate: { fixed: max.toString() } }));
      expect(record.affiliate).toEqual({ fixed: max });
    });

    it('refuses a currency id that is no UUID, naming the field', async () => {
      const { projectId } = await newProject(harness);
      await expect(harness.domain.terms.put(projectId, 'trade', termsInput('usdc'))).rejects.toMatchObject({ details: [{ field: 'currency_id' }] });
    });
  });
});
