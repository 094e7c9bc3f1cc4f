import { randomUUID } from 'node:crypto';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { evmAddress } from '../../helpers/evm-addresses';
import { batchOf, conversion, newProject, newUser, statusOf } from './fixtures';

/**
 * Taking conversions in (ConversionService): each checked alone, stored once under its id, the
 * same id and body a duplicate, another body a refusal, a failed one accepted anew, batches of up
 * to 1,000 with each item accepted or refused alone.
 */
describe('conversion intake (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());

  const storedCount = async (projectId: string) =>
    Number((await harness.sql.query('SELECT count(*) AS n FROM claim.conversions WHERE project_id = $1', [projectId])).rows[0].n);
  const batchesOf = async (projectId: string) =>
    Number((await harness.sql.query('SELECT count(*) AS n FROM claim.conversion_batches WHERE project_id = $1', [projectId])).rows[0].n);

  describe('one conversion', () => {
    it('is stored as accepted, with occurred_at defaulting to when it was received', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion({ volumeUsd: '12.50', revenueUsd: '0.10', referralCode: undefined });
      expect(await harness.domain.conversions.submitOne(projectId, input)).toEqual({ id: input.id, outcome: 'accepted', status: 'accepted' });
      const stored = await harness.domain.ledger.conversion(projectId, input.id);
      expect(stored).toMatchObject({
        id: input.id,
        name: 'trade',
        status: 'accepted',
        occurredAt: harness.clock.now(),
        receivedAt: harness.clock.now(),
        volumeUsd: '12.5',
        revenueUsd: '0.1',
        rewardBase: 10_000n,
        movements: [],
      });
    });

    it('answers the same id and body again as a duplicate, storing nothing twice', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion();
      await harness.domain.conversions.submitOne(projectId, input);
      harness.clock.advance(60_000);
      // The same conversion, spelled otherwise: the shortest form of the USD figure is the same amount.
      expect(await harness.domain.conversions.submitOne(projectId, { ...input })).toEqual({ id: input.id, outcome: 'duplicate', status: 'accepted' });
      expect(await storedCount(projectId)).toBe(1);
      expect(await batchesOf(projectId)).toBe(1);
    });

    it('counts "12.50" and "12.5" as the same body, and "12.5" and "12.6" as another', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion({ volumeUsd: '12.50' });
      await harness.domain.conversions.submitOne(projectId, input);
      expect((await harness.domain.conversions.submitOne(projectId, { ...input, volumeUsd: '12.5' })).outcome).toBe('duplicate');
      await expect(harness.domain.conversions.submitOne(projectId, { ...input, volumeUsd: '12.6' })).rejects.toMatchObject({
        code: 'CONVERSION_ID_REUSED',
      });
    });

    it.each([
      ['name', { name: 'other' }],
      ['user', { user: newUser() }],
      ['occurred_at', { occurredAt: new Date('2026-01-01T00:00:00Z') }],
      ['reward_base', { rewardBase: '10001' }],
      ['revenue_usd', { revenueUsd: '1' }],
      ['referral_code', { referralCode: 'SOMEONE' }],
    ])('refuses the same id with another %s (409 CONVERSION_ID_REUSED), changing nothing', async (_field, change) => {
      const { projectId } = await newProject(harness);
      const input = conversion();
      await harness.domain.conversions.submitOne(projectId, input);
      await expect(harness.domain.conversions.submitOne(projectId, { ...input, ...change })).rejects.toMatchObject({
        kind: 'already_exists',
        code: 'CONVERSION_ID_REUSED',
      });
      expect((await harness.domain.ledger.conversion(projectId, input.id)).name).toBe('trade');
      expect(await storedCount(projectId)).toBe(1);
    });

    it('keeps the id exactly as sent: ids differing in letter case or looking like UUIDs are distinct conversions', async () => {
      const { projectId } = await newProject(harness);
      const uuid = randomUUID().toUpperCase();
      for (const id of ['Order-1', 'order-1', uuid, uuid.toLowerCase()]) {
        expect((await harness.domain.conversions.submitOne(projectId, conversion({ id }))).outcome).toBe('accepted');
      }
      expect(await storedCount(projectId)).toBe(4);
      expect((await harness.domain.ledger.conversion(projectId, uuid)).id).toBe(uuid);
    });

    it('accepts a failed conversion sent again with the same body, in a new batch, and still refuses another body', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion();
      await harness.domain.conversions.submitOne(projectId, input);
      await harness.domain.payouts.failBatch(await batchOf(harness, projectId, input.id));
      expect(await statusOf(harness, projectId, input.id)).toBe('failed');
      await expect(harness.domain.conversions.submitOne(projectId, { ...input, name: 'other' })).rejects.toMatchObject({
        code: 'CONVERSION_ID_REUSED',
      });
      expect(await harness.domain.conversions.submitOne(projectId, input)).toEqual({ id: input.id, outcome: 'accepted', status: 'accepted' });
      const stored = await harness.domain.ledger.conversion(projectId, input.id);
      expect(stored).toMatchObject({ status: 'accepted', failureReason: null });
      expect(await batchesOf(projectId)).toBe(2);
    });
  });

  describe('validation', () => {
    const refusal = async (fields: Record<string, unknown>) => {
      const { projectId } = await newProject(harness);
      const error = await harness.domain.conversions.submitOne(projectId, conversion(fields)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(await storedCount(projectId)).toBe(0);
      return error;
    };

    it.each([
      ['an empty id', { id: '' }, 'id', 'is required'],
      ['an id of 129 characters', { id: 'x'.repeat(129) }, 'id', 'at most 128'],
      ['an id with surrounding spaces', { id: ' a ' }, 'id', 'whitespace'],
      ['an id with a control character', { id: 'a\u0007b' }, 'id', 'control characters'],
      ['an empty name', { name: '  ' }, 'name', 'is required'],
      ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name', 'at most 100'],
      ['no user', { user: undefined }, 'user', 'is required'],
      ['an unknown identifier type', { user: { identifier: evmAddress(1), identifierType: 'btc' } }, 'user.identifier_type', 'must be one of'],
      ['an invalid evm address', { user: { identifier: '0x12', identifierType: 'evm_address' } }, 'user.identifier', 'evm_address'],
      ['a negative volume', { volumeUsd: '-1' }, 'volume_usd', 'non-negative decimal'],
      ['a volume with an exponent', { volumeUsd: '1e3' }, 'volume_usd', 'non-negative decimal'],
      ['a revenue of 19 decimals', { revenueUsd: `0.${'1'.repeat(19)}` }, 'revenue_usd', 'at most 30 digits before the point and 18 after'],
      ['a revenue with a leading zero', { revenueUsd: '01.5' }, 'revenue_usd', 'non-negative decimal'],
      ['a fractional reward_base', { rewardBase: '1.5' }, 'reward_base', 'whole number'],
      ['a negative reward_base', { rewardBase: '-1' }, 'reward_base', 'must not be negative'],
      ['an empty referral code', { referralCode: '' }, 'referral_code', 'is required'],
      ['a referral code of 65 characters', { referralCode: 'c'.repeat(65) }, 'referral_code', 'at most 64'],
    ])('refuses %s, naming the field, and stores nothing', async (_name, fields, field, reason) => {
      expect(await refusal(fields)).toMatchObject({
        kind: 'invalid_argument',
        code: 'VALIDATION_FAILED',
        details: [{ field, reason: expect.stringContaining(reason) }],
      });
    });

    it('refuses a reward_base past 2^256 − 1 (AMOUNT_OUT_OF_RANGE), naming the bound, and takes 2^256 − 1 itself', async () => {
      for (const rewardBase of [(2n ** 256n).toString(), '9'.repeat(78)]) {
        expect(await refusal({ rewardBase })).toMatchObject({
          kind: 'invalid_argument',
          code: 'AMOUNT_OUT_OF_RANGE',
          message: expect.stringContaining(`reward_base: must be at most 2^256 − 1 = ${2n ** 256n - 1n}`),
          details: [{ field: 'reward_base' }],
        });
      }
      const { projectId } = await newProject(harness);
      const input = conversion({ rewardBase: (2n ** 256n - 1n).toString() });
      await harness.domain.conversions.submitOne(projectId, input);
      expect((await harness.domain.ledger.conversion(projectId, input.id)).rewardBase).toBe(2n ** 256n - 1n);
    });

    it('answers VALIDATION_FAILED, listing every problem, when an amount past 2^256 − 1 is not the only one', async () => {
      expect(await refusal({ name: '', rewardBase: (2n ** 256n).toString() })).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'name' }, { field: 'reward_base', reason: expect.stringContaining('2^256 − 1') }],
      });
    });

    it('accepts an occurred_at within five minutes ahead (the sender’s clock may run ahead)', async () => {
      const { projectId } = await newProject(harness);
      const occurredAt = new Date(harness.clock.now().getTime() + 4 * 60_000);
      const input = conversion({ occurredAt });
      await harness.domain.conversions.submitOne(projectId, input);
      expect((await harness.domain.ledger.conversion(projectId, input.id)).occurredAt).toEqual(occurredAt);
    });

    it('lists every problem of a conversion in one answer', async () => {
      const error = await refusal({ id: '', name: '', volumeUsd: 'x', rewardBase: 'y' });
      expect((error as { details: Array<{ field: string }> }).details.map((detail) => detail.field)).toEqual([
        'id',
        'name',
        'volume_usd',
        'reward_base',
      ]);
    });

    it('refuses an identifier not written canonically (NON_CANONICAL_ID), as every service does', async () => {
      const error = await refusal({ user: { identifier: evmAddress(10).toUpperCase().replace('0X', '0x'), identifierType: 'evm_address' } });
      expect(error).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'user.identifier' }] });
    });
  });

  describe('occurred_at’s bounds: from the project’s creation less the backfill window, to five minutes ahead', () => {
    const DAY = 86_400_000;
    const submit = async (occurredAt: Date, projectCreatedAt?: Date) => {
      const { projectId } = await newProject(harness);
      const input = conversion({ occurredAt });
      const outcome = await harness.domain.conversions.submitOne(projectId, input, projectCreatedAt).then(
        (submission) => submission,
        (error: unknown) => error,
      );
      return { outcome, stored: await storedCount(projectId) };
    };

    it('refuses one before the project’s creation less 365 days (OCCURRED_AT_OUT_OF_RANGE), naming the earliest time, and stores nothing', async () => {
      const createdAt = new Date(harness.clock.now().getTime() - 30 * DAY);
      const earliest = new Date(createdAt.getTime() - 365 * DAY);
      for (const occurredAt of [new Date(earliest.getTime() - 1), new Date(0)]) {
        const { outcome, stored } = await submit(occurredAt, createdAt);
        expect(outcome).toMatchObject({
          kind: 'invalid_argument',
          code: 'OCCURRED_AT_OUT_OF_RANGE',
          message: expect.stringContaining(`occurred_at: must be at or after ${earliest.toISOString()}`),
          details: [{ field: 'occurred_at', reason: expect.stringContaining(createdAt.toISOString()) }],
        });
        expect(stored).toBe(0);
      }
    });

    it('accepts the earliest time itself, and anything between it and now', async () => {
      const createdAt = new Date(harness.clock.now().getTime() - 30 * DAY);
      for (const occurredAt of [new Date(createdAt.getTime() - 365 * DAY), new Date(createdAt.getTime() - DAY), createdAt]) {
        expect(await submit(occurredAt, createdAt)).toEqual({ outcome: expect.objectContaining({ outcome: 'accepted' }), stored: 1 });
      }
    });

    it('counts from now for a project whose creation the caller does not name (or names in the future)', async () => {
      const now = harness.clock.now();
      const earliest = new Date(now.getTime() - 365 * DAY);
      expect((await submit(earliest)).stored).toBe(1);
      expect(await submit(new Date(earliest.getTime() - 1))).toMatchObject({ outcome: { code: 'OCCURRED_AT_OUT_OF_RANGE' }, stored: 0 });
      expect(await submit(new Date(earliest.getTime() - 1), new Date(now.getTime() + DAY))).toMatchObject({
        outcome: { code: 'OCCURRED_AT_OUT_OF_RANGE' },
        stored: 0,
      });
    });

    it('refuses one more than five minutes ahead with the same code, naming the latest time', async () => {
      const latest = new Date(harness.clock.now().getTime() + 5 * 60_000);
      expect(await submit(new Date(latest.getTime() + 1))).toMatchObject({
        outcome: {
          code: 'OCCURRED_AT_OUT_OF_RANGE',
          details: [{ field: 'occurred_at', reason: expect.stringContaining(`not in the future: at or before ${latest.toISOString()}`) }],
        },
        stored: 0,
      });
      expect((await submit(latest)).stored).toBe(1);
    });

    it('answers VALIDATION_FAILED, listing both, when the date is not the only problem', async () => {
      const { projectId } = await newProject(harness);
      await expect(harness.domain.conversions.submitOne(projectId, conversion({ occurredAt: new Date(0), volumeUsd: 'x' }))).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'occurred_at' }, { field: 'volume_usd' }],
      });
    });
  });

  describe('a batch', () => {
    it('accepts or refuses each conversion alone, in order, naming refused fields within their conversion', async () => {
      const { projectId } = await newProject(harness);
      const earlier = conversion();
      await harness.domain.conversions.submitOne(projectId, earlier);
      const fresh = conversion();
      const inputs = [
        fresh,
        conversion({ rewardBase: 'lots' }),
        earlier,
        { ...earlier, name: 'renamed' },
        { ...fresh },
        { ...fresh, rewardBase: '1' },
      ];
      const answers = await harness.domain.conversions.submitMany(projectId, inputs);
      expect(answers.map((answer) => answer.outcome)).toEqual(['accepted', 'refused', 'duplicate', 'refused', 'duplicate', 'refused']);
      expect(answers[1]).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ field: 'reward_base' }] } });
      expect(answers[3]).toMatchObject({ error: { code: 'CONVERSION_ID_REUSED' } });
      expect(answers[4]).toEqual({ id: fresh.id, outcome: 'duplicate', status: 'accepted' });
      expect(answers[5]).toMatchObject({ error: { code: 'CONVERSION_ID_REUSED' } });
      expect(await storedCount(projectId)).toBe(2);
    });

    it('takes 1,000 conversions in one batch, and refuses 1,001 whole (BATCH_TOO_LARGE), storing nothing', async () => {
      const { projectId } = await newProject(harness);
      const thousand = Array.from({ length: 1_000 }, () => conversion());
      const answers = await harness.domain.conversions.submitMany(projectId, thousand);
      expect(answers.every((answer) => answer.outcome === 'accepted')).toBe(true);
      expect(await batchesOf(projectId)).toBe(1);
      const other = await newProject(harness);
      await expect(harness.domain.conversions.submitMany(other.projectId, [...thousand, conversion()])).rejects.toMatchObject({
        code: 'BATCH_TOO_LARGE',
      });
      await expect(harness.domain.conversions.submitMany(other.projectId, [])).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(await storedCount(other.projectId)).toBe(0);
    });

    it('stores no batch when every conversion was a duplicate or refused', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion();
      await harness.domain.conversions.submitOne(projectId, input);
      await harness.domain.conversions.submitMany(projectId, [input, conversion({ id: '' })]);
      expect(await batchesOf(projectId)).toBe(1);
    });

    it('stores each conversion once when 1,000 requests send the same one at once, answering one accepted and 999 duplicates', async () => {
      const { projectId } = await newProject(harness);
      const input = conversion();
      const answers = await Promise.all(Array.from({ length: 1_000 }, () => harness.domain.conversions.submitOne(projectId, { ...input })));
      expect(answers.filter((answer) => answer.outcome === 'accepted')).toHaveLength(1);
      expect(answers.filter((answer) => answer.outcome === 'duplicate')).toHaveLength(999);
      expect(await storedCount(projectId)).toBe(1);
      expect(await batchesOf(projectId)).toBe(1);
    });

    it('keeps concurrent batches that share ids apart: every id stored once, whatever the order they arrive in', async () => {
      const { projectId } = await newProject(harness);
      const shared = Array.from({ length: 200 }, () => conversion());
      const batches = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? [...shared] : [...shared].reverse()));
      const answers = await Promise.all(batches.map((inputs) => harness.domain.conversions.submitMany(projectId, inputs)));
      const accepted = answers.flat().filter((answer) => answer.outcome === 'accepted').length;
      expect(accepted).toBe(200);
      expect(answers.flat().filter((answer) => answer.outcome === 'duplicate')).toHaveLength(200 * 7);
      expect(await storedCount(projectId)).toBe(200);
    });
  });

  it('refuses a project id that is no UUID as not found', async () => {
    await expect(harness.domain.conversions.submitOne('not-a-project', conversion())).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
  });
});
