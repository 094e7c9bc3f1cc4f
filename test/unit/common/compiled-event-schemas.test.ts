import fc from 'fast-check';
import { z } from 'zod';
import { EVENT_PAYLOADS } from '../../../services/platform/events/contracts';
import { payloadContract } from '../../../services/platform/outbox/consumer';
import { eventJobData, packedEvents } from '../../../services/platform/outbox/event';

/**
 * The consumers read a batch's envelopes and each payload with zod's compiled schemas (z.compile):
 * they must accept and refuse exactly what the runtime schemas do, with the same output, and refuse
 * with the same issues (an unreadable event is recorded with them). Compared on generated inputs and
 * on valid ones mutated at one place (a value replaced, a key removed or added). Pure.
 */
function expectSameAnswer(compiled: z.ZodType, runtime: z.ZodType, input: unknown): boolean {
  const fast = compiled.safeParse(input);
  const slow = runtime.safeParse(input);
  expect(fast.success).toBe(slow.success);
  if (fast.success && slow.success) expect(fast.data).toStrictEqual(slow.data);
  else expect(fast.error?.issues).toEqual(slow.error?.issues);
  return slow.success;
}

/** How many of a property's inputs were accepted and refused: a comparison on one side only proves little. */
function tally(): { count: (accepted: boolean) => void; accepted: number; refused: number } {
  const counts = {
    accepted: 0,
    refused: 0,
    count: (accepted: boolean) => {
      if (accepted) counts.accepted++;
      else counts.refused++;
    },
  };
  return counts;
}

/** Values a field may wrongly hold, and near misses of the formats checked. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(''),
  fc.boolean(),
  fc.integer({ min: -5, max: 100_000 }),
  fc.double(),
  fc.string(),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.uuid().map((id) => id.slice(1)),
  fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-00000000000g'),
  fc.constantFrom(
    '2026-11-29T12:00:00Z',
    '2026-11-29T12:00:00+01:00',
    '2026-11-29T12:00Z',
    '2026-11-29T12:00:00',
    '2026-02-30T00:00:00Z',
    '2024-02-29T23:59:59.123456+23:59',
  ),
  fc.constantFrom('0', '1', '-1', '1.5', '8453', '0x1', '9'.repeat(78), '1'.repeat(77)),
  fc.constantFrom('evm_address', 'solana_address', 'EVM_ADDRESS', 'processed', 'no_terms', 'affiliate_payout', 'erc20', 'point'),
  fc.array(fc.jsonValue(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 2 }),
);

type Path = Array<string | number>;

/** Every place in a JSON value: its containers' keys and indexes. */
function pathsOf(value: unknown, path: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return [path, ...entries.flatMap(([key, item]) => pathsOf(item, [...path, key]))];
}

/** `value` changed at one place: the value there replaced, or (in an object) a key removed or one added. */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(value);
  return fc
    .tuple(fc.nat({ max: paths.length - 1 }), fc.constantFrom('replace', 'remove', 'add'), oddValue, fc.string({ maxLength: 6 }))
    .map(([at, how, odd, key]) => {
      const copy = structuredClone<unknown>(value);
      const path = paths[at]!;
      if (path.length === 0) return how === 'replace' ? odd : copy;
      const parent = path.slice(0, -1).reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], copy) as Record<
        string | number,
        unknown
      >;
      const last = path[path.length - 1]!;
      if (how === 'replace') parent[last] = odd;
      else if (how === 'remove' && !Array.isArray(parent)) delete parent[last];
      else if (how === 'add' && !Array.isArray(parent)) parent[`${key}_extra`] = odd;
      return copy;
    });
}

const wallet = fc.stringMatching(/^0x[0-9a-f]{40}$/);
const user = fc.record({ identifier: wallet, identifier_type: fc.constantFrom('evm_address', 'solana_address') });
const isoTime = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
const amount = fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String);

/** A claim.conversion.processed payload as the claim service writes them, with and without each optional part. */
const processedPayload = fc.record(
  {
    conversion_id: fc.string({ minLength: 1, maxLength: 12 }),
    name: fc.constantFrom('trade', 'deposit'),
    status: fc.constantFrom('processed', 'no_terms'),
    occurred_at: isoTime,
    user,
    affiliate: fc.option(fc.record({ id: fc.nat().map(String), user })),
    master: fc.option(fc.record({ id: fc.nat().map(String), user, spread_bps: fc.integer({ min: 0, max: 10_000 }) })),
    upline: fc.array(fc.record({ level: fc.integer({ min: 2, max: 4 }), id: fc.nat().map(String), user }), { maxLength: 3 }),
    tier_id: fc.option(fc.uuid()),
    volume_usd: fc.option(fc.constantFrom('0', '10.25', '1000')),
    revenue_usd: fc.option(fc.constantFrom('0', '1.5')),
    currency_id: fc.option(fc.uuid()),
    currency: fc.option(
      fc.record(
        {
          id: fc.uuid(),
          chain_id: fc.option(fc.constantFrom('1', '8453')),
          address: fc.option(wallet),
          name: fc.constantFrom('USDC', 'Points'),
          decimals: fc.integer({ min: 0, max: 77 }),
          type: fc.constantFrom('erc20', 'native', 'point'),
        },
        { requiredKeys: ['id', 'chain_id', 'address', 'name', 'decimals'] },
      ),
    ),
    payouts: fc.array(
      fc.record(
        {
          kind: fc.constantFrom('affiliate_payout', 'end_user_payout', 'agency_payout'),
          user,
          amount,
          rebate: fc.constant(true),
          level: fc.integer({ min: 1, max: 4 }),
        },
        { requiredKeys: ['kind', 'user', 'amount'] },
      ),
      { maxLength: 4 },
    ),
  },
  {
    requiredKeys: [
      'conversion_id',
      'name',
      'status',
      'occurred_at',
      'user',
      'affiliate',
      'master',
      'tier_id',
      'volume_usd',
      'revenue_usd',
      'currency_id',
      'payouts',
    ],
  },
);

/** An event of a batch as the relay writes it. */
const envelope = fc.record({
  id: fc.uuid(),
  type: fc.constant('claim.conversion.processed'),
  projectId: fc.uuid(),
  payload: processedPayload,
  createdAt: isoTime,
});

describe('the compiled envelopes of a packed batch (outbox/event.ts)', () => {
  const runtime = z.array(eventJobData).min(1);

  it('answer as the runtime schema on batches as the relay writes them, mutated at one place', () => {
    const counts = tally();
    fc.assert(
      fc.property(
        fc.array(envelope, { minLength: 1, maxLength: 3 }).chain((batch) => fc.oneof(fc.constant(batch), mutated(batch))),
        (input) => counts.count(expectSameAnswer(packedEvents, runtime, input)),
      ),
      { numRuns: 500 },
    );
    expect(counts.accepted).toBeGreaterThan(100);
    expect(counts.refused).toBeGreaterThan(20);
  });

  it('answer as the runtime schema on anything', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.array(fc.dictionary(fc.constantFrom('id', 'type', 'projectId', 'payload', 'createdAt', 'x'), oddValue))),
        (input) => {
          expectSameAnswer(packedEvents, runtime, input);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the compiled contract a consumer reads a payload with (outbox/consumer.ts)', () => {
  const runtime = EVENT_PAYLOADS['claim.conversion.processed'];

  it('answers as the runtime contract of claim.conversion.processed on its payloads, mutated at one place', () => {
    const counts = tally();
    fc.assert(
      fc.property(
        processedPayload.chain((payload) => fc.oneof(fc.constant(payload), mutated(payload))),
        (input) => counts.count(expectSameAnswer(payloadContract('claim.conversion.processed'), runtime, input)),
      ),
      { numRuns: 1_000 },
    );
    expect(counts.accepted).toBeGreaterThan(200);
    expect(counts.refused).toBeGreaterThan(100);
  });

  it.each(Object.keys(EVENT_PAYLOADS) as Array<keyof typeof EVENT_PAYLOADS>)('answers as the runtime contract of %s on anything', (type) => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.dictionary(fc.string({ maxLength: 12 }), oddValue)), (input) => {
        expectSameAnswer(payloadContract(type), EVENT_PAYLOADS[type], input);
      }),
      { numRuns: 100 },
    );
  });

  it('compiles each contract once', () => {
    expect(payloadContract('claim.conversion.processed')).toBe(payloadContract('claim.conversion.processed'));
  });
});
