import type { ClaimDatabase } from '../../services/claim/database';
import { ConversionReviewRepository } from '../../services/claim/repositories/conversion-review.repository';
import { openDatabase, type Database } from '../../services/platform/db/database';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';

const START = '2026-11-21T12:00:00.000Z';

/**
 * Review settings and the review queue over HTTP (docs/claims.md#review-rules): PATCH semantics
 * (absent keeps, null turns off), validation answered as 400 with the standard body, admin keys only,
 * and the queue's shape, filters and paging (filled through the claim service's repository; the payment
 * path's flagging is in review-queue.test.ts). The many cases are tested on the domain in
 * test/medium/claim/review.test.ts.
 */
describe('review settings and the review queue over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let claimDb: Database<ClaimDatabase>;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set(START);
    claimDb = openDatabase<ClaimDatabase>({
      url: stack.databaseUrl,
      schema: SERVICE_CATALOG.claim.schema,
      poolMax: 2,
      applicationName: 'test-review',
      logger: stack.logs.logger('db'),
    });
  });
  afterAll(async () => {
    await claimDb.close();
    await stack.stop();
  });

  const settingsPath = () => `/api/v1/projects/${project.id}/review-settings`;
  const patch = (body: unknown, key = project.keys.admin) => stack.api.patch(settingsPath(), { key, body });

  it('answers every rule off until changed, then applies a PATCH field by field (absent keeps, null turns off)', async () => {
    expect(await stack.api.get(settingsPath(), { key: project.keys.admin })).toMatchObject({
      status: 200,
      body: {
        max_conversions_per_user_per_hour: null,
        min_seconds_from_referral_to_conversion: null,
        max_reward_per_conversion: null,
        updated_at: null,
      },
    });
    expect(await patch({ max_conversions_per_user_per_hour: 20, max_reward_per_conversion: '1000000000000000000000' })).toMatchObject({
      status: 200,
      body: {
        max_conversions_per_user_per_hour: 20,
        min_seconds_from_referral_to_conversion: null,
        max_reward_per_conversion: '1000000000000000000000',
        updated_at: START,
      },
    });
    stack.clock.advance(60_000);
    expect(await patch({ min_seconds_from_referral_to_conversion: 30, max_conversions_per_user_per_hour: null })).toMatchObject({
      status: 200,
      body: {
        max_conversions_per_user_per_hour: null,
        min_seconds_from_referral_to_conversion: 30,
        max_reward_per_conversion: '1000000000000000000000',
        updated_at: '2026-11-21T12:01:00.000Z',
      },
    });
    expect((await stack.api.get(settingsPath(), { key: project.keys.admin })).body).toEqual({
      max_conversions_per_user_per_hour: null,
      min_seconds_from_referral_to_conversion: 30,
      max_reward_per_conversion: '1000000000000000000000',
      updated_at: '2026-11-21T12:01:00.000Z',
    });
  });

  it.each([
    ['max_conversions_per_user_per_hour', 0],
    ['max_conversions_per_user_per_hour', 1_000_001],
    ['max_conversions_per_user_per_hour', 2.5],
    ['max_conversions_per_user_per_hour', '10'],
    ['max_conversions_per_user_per_hour', 1e12],
    ['min_seconds_from_referral_to_conversion', -1],
    ['min_seconds_from_referral_to_conversion', 31_536_001],
    ['max_reward_per_conversion', '-5'],
    ['max_reward_per_conversion', '1.5'],
    ['max_reward_per_conversion', 1000],
    ['max_reward_per_conversion', '9'.repeat(101)],
  ])('refuses %s = %p with 400 naming the field, changing nothing', async (field, value) => {
    const before = (await stack.api.get(settingsPath(), { key: project.keys.admin })).body;
    const response = await patch({ [field]: value });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, details: [expect.objectContaining({ field })] });
    expect((await stack.api.get(settingsPath(), { key: project.keys.admin })).body).toEqual(before);
  });

  it('refuses an unknown field and a reward past 2^256 − 1 (AMOUNT_OUT_OF_RANGE), and keeps the settings for admin keys', async () => {
    expect(await patch({ max_payout: 1 })).toMatchObject({ status: 400 });
    expect(await patch({ max_reward_per_conversion: (2n ** 256n).toString() })).toMatchObject({
      status: 400,
      body: { code: 'AMOUNT_OUT_OF_RANGE', details: [{ field: 'max_reward_per_conversion' }] },
    });
    for (const key of [project.keys.readOnly, project.keys.service]) {
      expect(await stack.api.get(settingsPath(), { key })).toMatchObject({ status: 403 });
      expect(await patch({ max_conversions_per_user_per_hour: 1 }, key)).toMatchObject({ status: 403 });
    }
  });

  describe('the review queue', () => {
    const list = (query = '', key = project.keys.admin) => stack.api.get(`/api/v1/projects/${project.id}/review${query}`, { key });
    const alice = randomEvmAddress();
    const bob = randomEvmAddress();

    beforeAll(async () => {
      const reviews = new ConversionReviewRepository(claimDb.db);
      const user = (identifier: string) => ({ identifier, identifierType: 'evm_address' as const });
      await reviews.flag(
        project.id,
        [{ conversionId: 'conv-1', user: user(alice), rules: [{ rule: 'max_conversions_per_user_per_hour', limit: 5n, actual: 6n }] }],
        new Date('2026-11-21T13:00:00.000Z'),
      );
      await reviews.flag(
        project.id,
        [
          {
            conversionId: 'conv-2',
            user: user(bob),
            rules: [
              { rule: 'min_seconds_from_referral_to_conversion', limit: 60n, actual: 2n },
              { rule: 'max_reward_per_conversion', limit: 10n ** 18n, actual: 10n ** 40n },
            ],
          },
        ],
        new Date('2026-11-21T13:05:00.000Z'),
      );
      await reviews.decide(project.id, ['conv-1'], 'approved', new Date('2026-11-21T13:10:00.000Z'));
    });

    it('lists flagged conversions newest first in the standard list shape, with their rules and figures', async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        results: [
          {
            conversion_id: 'conv-2',
            user_identifier: bob,
            user_identifier_type: 'evm_address',
            rules: [
              { rule: 'min_seconds_from_referral_to_conversion', limit: '60', actual: '2' },
              { rule: 'max_reward_per_conversion', limit: '1000000000000000000', actual: '10000000000000000000000000000000000000000' },
            ],
            flagged_at: '2026-11-21T13:05:00.000Z',
            status: 'open',
            decided_at: null,
            decision: null,
          },
          {
            conversion_id: 'conv-1',
            user_identifier: alice,
            user_identifier_type: 'evm_address',
            rules: [{ rule: 'max_conversions_per_user_per_hour', limit: '5', actual: '6' }],
            flagged_at: '2026-11-21T13:00:00.000Z',
            status: 'decided',
            decided_at: '2026-11-21T13:10:00.000Z',
            decision: 'approved',
          },
        ],
        total_results: 2,
        page: 1,
        page_size: 25,
      });
    });

    it('filters by rule, status and user, and pages', async () => {
      const ids = async (query: string) => (await list(query)).body.results.map((item: { conversion_id: string }) => item.conversion_id);
      expect(await ids('?rule=max_reward_per_conversion')).toEqual(['conv-2']);
      expect(await ids('?status=decided')).toEqual(['conv-1']);
      expect(await ids('?status=open&rule=max_conversions_per_user_per_hour')).toEqual([]);
      expect(await ids(`?user_identifier=${alice.toUpperCase().replace('0X', '0x')}`)).toEqual(['conv-1']);
      expect(await list('?page=2&page_size=1')).toMatchObject({ status: 200, body: { total_results: 2, results: [{ conversion_id: 'conv-1' }] } });
    });

    it('refuses bad filters with 400 naming them, and keys other than admin with 403', async () => {
      expect(await list('?rule=too_fast')).toMatchObject({ status: 400, body: { details: [{ field: 'rule' }] } });
      expect(await list('?status=closed')).toMatchObject({ status: 400, body: { details: [{ field: 'status' }] } });
      expect(await list('?user_identifier_type=email')).toMatchObject({ status: 400, body: { details: [{ field: 'user_identifier_type' }] } });
      expect(await list('?user_identifier=nope')).toMatchObject({ status: 400 });
      expect(await list('', project.keys.readOnly)).toMatchObject({ status: 403 });
      expect(await list('', project.keys.service)).toMatchObject({ status: 403 });
    });
  });
});
