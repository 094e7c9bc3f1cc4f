import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import type { BatchEntryInput } from '../../../services/audience/domain/entry-batch.service';
import { Deadline } from '../../../services/platform/deadline';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress, mixedCase } from '../../helpers/evm-addresses';

const evm = (n: number): BatchEntryInput => ({ identifier: evmAddress(n), identifierType: 'evm_address' });
const OTHER_TYPES: BatchEntryInput[] = [
  { identifier: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', identifierType: 'solana_address' },
  { identifier: `0x${'AB'.repeat(32)}`, identifierType: 'sui_address' },
  { identifier: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', identifierType: 'xrpl_address' },
  { identifier: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7', identifierType: 'stellar_address' },
  { identifier: 'Someone@Example.com', identifierType: 'email' },
];

/**
 * The rules of entries (EntryService, EntryBatchService, UserAudienceService) on the domain and its
 * tables: batch normalisation, duplicates, idempotency, identifier formats, cursors. A stored batch is
 * applied by calling the worker's step (domain.batches.apply) directly.
 */
describe('audience entries and batches (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  async function newSegment() {
    const projectId = randomUUID();
    const segment = await harness.domain.segments.create(projectId, { name: 'Segment' });
    return { projectId, segmentId: segment.id };
  }
  const submit = (at: { projectId: string; segmentId: string }, entries: BatchEntryInput[], idempotencyKey?: string) =>
    harness.domain.batches.submit(at.projectId, at.segmentId, entries, idempotencyKey, { deadline: Deadline.after(10_000), waitMs: 0 });
  const identifiersIn = async (segmentId: string) =>
    (await harness.sql.query('SELECT identifier FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [segmentId])).rows.map(
      (row) => row.identifier as string,
    );
  const batchesOf = async (segmentId: string) =>
    (await harness.sql.query('SELECT count(*)::int AS n FROM audience.entry_batches WHERE segment_id = $1', [segmentId])).rows[0].n as number;
  const countOf = async (at: { projectId: string; segmentId: string }) =>
    (await harness.domain.segments.get(at.projectId, at.segmentId)).entriesCount;

  describe('batch normalisation', () => {
    it('refuses a batch with any invalid entry, naming each index, and stores nothing', async () => {
      const at = await newSegment();
      const entries = [evm(1), { identifier: '0x12', identifierType: 'evm_address' }, evm(2), { identifier: evmAddress(3), identifierType: 'btc' }];
      await expect(submit(at, entries)).rejects.toMatchObject({
        code: 'INVALID_BATCH',
        message: '2 of 4 entries are invalid; nothing was written',
        details: [
          { field: 'entries[1].identifier', reason: expect.stringContaining('evm_address') },
          { field: 'entries[3].identifier_type', reason: expect.stringContaining('evm_address, solana_address') },
        ],
      });
      expect(await batchesOf(at.segmentId)).toBe(0);
    });

    it('lists the first 100 invalid entries and counts them all', async () => {
      const at = await newSegment();
      const entries = Array.from({ length: 150 }, () => ({ identifier: 'nope', identifierType: 'email' }));
      const error: unknown = await submit(at, entries).catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 'INVALID_BATCH',
        message: '150 of 150 entries are invalid (the first 100 are listed); nothing was written',
      });
      expect((error as { details: unknown[] }).details).toHaveLength(100);
    });

    it.each([
      ['no entries', [], 'VALIDATION_FAILED', 'entries'],
      ['10,001 entries', Array.from({ length: 10_001 }, (_, i) => evm(i)), 'BATCH_TOO_LARGE', 'entries'],
    ])('refuses %s, naming the list', async (_case, entries, code, field) => {
      const at = await newSegment();
      await expect(submit(at, entries)).rejects.toMatchObject({ code, details: [{ field, reason: expect.any(String) }] });
      expect(await batchesOf(at.segmentId)).toBe(0);
    });

    it.each([
      ['an empty', ''],
      ['a 256-character', 'k'.repeat(256)],
    ])('refuses %s idempotency key', async (_case, key) => {
      const at = await newSegment();
      await expect(submit(at, [evm(1)], key)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'Idempotency-Key', reason: expect.any(String) }],
      });
    });

    it('refuses a batch for a segment of another project, or none', async () => {
      const at = await newSegment();
      await expect(submit({ projectId: randomUUID(), segmentId: at.segmentId }, [evm(1)])).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      await expect(submit({ projectId: at.projectId, segmentId: 'nope' }, [evm(1)])).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
      expect(await batchesOf(at.segmentId)).toBe(0);
    });

    it('stores a batch queued, with every identifier in its canonical form', async () => {
      const at = await newSegment();
      const { batch, created } = await submit(at, [{ identifier: mixedCase(evmAddress(0xabc)), identifierType: 'evm_address' }, ...OTHER_TYPES]);
      expect(created).toBe(true);
      expect(batch).toMatchObject({ status: 'queued', received: 6, added: 0, skipped: 0, error: null });
      const { rows } = await harness.sql.query('SELECT identifiers, identifier_types FROM audience.entry_batches WHERE id = $1', [batch.id]);
      expect(rows[0].identifiers).toEqual([
        evmAddress(0xabc),
        '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
        `0x${'ab'.repeat(32)}`,
        'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
        'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
        'someone@example.com',
      ]);
    });
  });

  describe('applying a batch (the worker’s step)', () => {
    it('skips users already in the segment and repeats inside the batch, counting them, and keeps the count right', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(10), 'evm_address');
      const entries = [
        evm(10), // already there
        { identifier: mixedCase(evmAddress(10)), identifierType: 'evm_address' }, // already there, other case
        evm(11),
        evm(11), // repeated in the batch
        { identifier: mixedCase(evmAddress(12)), identifierType: 'evm_address' },
        evm(12), // the same user as the previous one
        evm(13),
      ];
      const { batch } = await submit(at, entries);
      expect(await harness.domain.batches.apply(batch.id)).toEqual({ applied: true, added: 3 });
      expect(await harness.domain.batches.get(at.projectId, at.segmentId, batch.id, 0)).toMatchObject({
        status: 'completed',
        received: 7,
        added: 3,
        skipped: 4,
      });
      expect(await identifiersIn(at.segmentId)).toEqual([evmAddress(10), evmAddress(11), evmAddress(12), evmAddress(13)]);
      expect(await countOf(at)).toBe(4n);
    });

    it('changes nothing when the same batch is applied again, and drops the staged entries once done', async () => {
      const at = await newSegment();
      const { batch } = await submit(at, [evm(20), evm(21)]);
      await harness.domain.batches.apply(batch.id);
      expect(await harness.domain.batches.apply(batch.id)).toEqual({ applied: false, reason: 'finished' });
      expect(await harness.domain.batches.apply(randomUUID())).toEqual({ applied: false, reason: 'missing' });
      expect(await countOf(at)).toBe(2n);
      const { rows } = await harness.sql.query('SELECT identifiers, identifier_types FROM audience.entry_batches WHERE id = $1', [batch.id]);
      expect(rows).toEqual([{ identifiers: null, identifier_types: null }]);
    });

    it('takes 10,000 entries in one batch', async () => {
      const at = await newSegment();
      const { batch } = await submit(
        at,
        Array.from({ length: 10_000 }, (_, i) => evm(100_000 + i)),
      );
      expect(await harness.domain.batches.apply(batch.id)).toEqual({ applied: true, added: 10_000 });
      expect(await countOf(at)).toBe(10_000n);
    });

    it('marks a batch that will not be applied as failed, with a reason the caller can act on, and adds nothing', async () => {
      const at = await newSegment();
      const { batch } = await submit(at, [evm(30)]);
      await harness.domain.batches.fail(batch.id);
      expect(await harness.domain.batches.get(at.projectId, at.segmentId, batch.id, 0)).toMatchObject({
        status: 'failed',
        error: 'the batch could not be applied; submit it again',
      });
      expect(await harness.domain.batches.apply(batch.id)).toEqual({ applied: false, reason: 'finished' });
      expect(await identifiersIn(at.segmentId)).toEqual([]);
    });

    it('lists stored batches not finished yet, oldest first (the relay’s work)', async () => {
      const at = await newSegment();
      const first = (await submit(at, [evm(40)])).batch;
      harness.clock.advance(1_000);
      const second = (await submit(at, [evm(41)])).batch;
      await harness.domain.batches.apply(first.id);
      const unfinished = await harness.domain.batches.unfinished(1_000);
      expect(unfinished).toContain(second.id);
      expect(unfinished).not.toContain(first.id);
    });
  });

  describe('idempotency', () => {
    it('answers a retry with the same key with the batch the first request created, storing one', async () => {
      const at = await newSegment();
      const key = `import-${randomUUID()}`;
      const first = await submit(at, [evm(50), evm(51)], key);
      // The same users, spelled otherwise: the same request.
      const again = await submit(at, [{ identifier: mixedCase(evmAddress(50)), identifierType: 'evm_address' }, evm(51)], key);
      expect(again).toEqual({ batch: first.batch, created: false });
      expect(await batchesOf(at.segmentId)).toBe(1);
    });

    it('refuses a key reused for a different request', async () => {
      const at = await newSegment();
      const key = `reuse-${randomUUID()}`;
      await submit(at, [evm(60)], key);
      await expect(submit(at, [evm(61)], key)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', kind: 'already_exists' });
      expect(await batchesOf(at.segmentId)).toBe(1);
    });

    it('stores one batch for concurrent first attempts with the same key', async () => {
      const at = await newSegment();
      const key = `race-${randomUUID()}`;
      const answers = await Promise.all(Array.from({ length: 6 }, () => submit(at, [evm(70)], key)));
      expect(new Set(answers.map((answer) => answer.batch.id)).size).toBe(1);
      expect(answers.filter((answer) => answer.created)).toHaveLength(1);
      expect(await batchesOf(at.segmentId)).toBe(1);
    });
  });

  describe('single entries', () => {
    it('adds a user once: the same user again, in any letter case and concurrently, is a conflict', async () => {
      const at = await newSegment();
      const user = evmAddress(0x5eed);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => harness.domain.entries.add(at.projectId, at.segmentId, i % 2 ? mixedCase(user) : user, 'evm_address')),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'AUDIENCE_ENTRY_EXISTS', kind: 'already_exists' });
      }
      expect(await countOf(at)).toBe(1n);
    });

    it.each([
      [{ identifier: '0x123', identifierType: 'evm_address' }, 'identifier'],
      [{ identifier: evmAddress(1), identifierType: 'bitcoin_address' }, 'identifier_type'],
      [{ identifier: 'not an email', identifierType: 'email' }, 'identifier'],
      [{ identifier: 'O0Il'.repeat(10), identifierType: 'solana_address' }, 'identifier'],
      [{ identifier: `0x${'ab'.repeat(31)}`, identifierType: 'sui_address' }, 'identifier'],
      [{ identifier: 'xHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', identifierType: 'xrpl_address' }, 'identifier'],
      [{ identifier: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN', identifierType: 'stellar_address' }, 'identifier'],
    ])('refuses %j naming %s, adding nothing', async (user, field) => {
      const at = await newSegment();
      await expect(harness.domain.entries.add(at.projectId, at.segmentId, user.identifier, user.identifierType)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field, reason: expect.any(String) }],
      });
      expect(await countOf(at)).toBe(0n);
    });

    it('removes a user under every type the identifier is valid for when none is given, and keeps the count right', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, 'someone@example.com', 'email');
      await expect(harness.domain.entries.remove(at.projectId, at.segmentId, 'someone@example.com', 'evm_address')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      expect(await harness.domain.entries.remove(at.projectId, at.segmentId, 'someone@example.com', undefined)).toBe(1);
      expect(await countOf(at)).toBe(0n);
      await expect(harness.domain.entries.remove(at.projectId, at.segmentId, 'someone@example.com', undefined)).rejects.toMatchObject({
        code: 'AUDIENCE_ENTRY_NOT_FOUND',
      });
    });

    it('walks entries newest first by cursor, each exactly once, also those added in the same instant', async () => {
      const at = await newSegment();
      const { batch } = await submit(
        at,
        Array.from({ length: 12 }, (_, i) => evm(80_000 + i)),
      );
      await harness.domain.batches.apply(batch.id);
      harness.clock.advance(1_000);
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(90_000), 'evm_address');
      const walked: string[] = [];
      const pages: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await harness.domain.entries.list(at.projectId, at.segmentId, { page: 1, pageSize: 5, offset: 0 }, cursor);
        walked.push(...page.records.map((entry) => entry.identifier));
        pages.push(page.page);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(walked[0]).toBe(evmAddress(90_000));
      expect(new Set(walked).size).toBe(13);
      expect(pages).toEqual([1, 2, 3]);
    });

    it('refuses a cursor it did not issue', async () => {
      const at = await newSegment();
      for (const cursor of ['bm9wZQ', Buffer.from(JSON.stringify({ p: 1, a: 'x', t: 'evm_address', i: '0x' })).toString('base64url')]) {
        await expect(harness.domain.entries.list(at.projectId, at.segmentId, { page: 1, pageSize: 5, offset: 0 }, cursor)).rejects.toMatchObject({
          code: 'INVALID_CURSOR',
        });
      }
    });
  });

  describe('user lookups', () => {
    it('answers each lookup in order, each in its own project, an invalid one failing alone', async () => {
      const at = await newSegment();
      await harness.domain.entries.add(at.projectId, at.segmentId, evmAddress(1), 'evm_address');
      const outcomes = await harness.domain.userAudiences.lookup([
        { projectId: at.projectId, identifier: evmAddress(1), identifierType: 'evm_address' },
        { projectId: at.projectId, identifier: '0x12', identifierType: 'evm_address' },
        { projectId: randomUUID(), identifier: evmAddress(1), identifierType: 'evm_address' },
        { projectId: at.projectId.toUpperCase(), identifier: evmAddress(1), identifierType: 'evm_address' },
      ]);
      expect(outcomes).toEqual([
        { audiences: [{ id: at.segmentId, name: 'Segment', badgeName: null, badgeDescription: null, badgeImage: null }] },
        { error: expect.objectContaining({ code: 'VALIDATION_FAILED' }) },
        { audiences: [] },
        { error: expect.objectContaining({ code: 'NON_CANONICAL_ID' }) },
      ]);
    });

    it('refuses more than 1,000 lookups in one call', async () => {
      const lookups = Array.from({ length: 1_001 }, () => ({ projectId: randomUUID(), identifier: evmAddress(1), identifierType: 'evm_address' }));
      await expect(harness.domain.userAudiences.lookup(lookups)).rejects.toMatchObject({ code: 'TOO_MANY_LOOKUPS' });
    });
  });
});
