/**
 * What a consumer's reading of a packed batch costs (issue 27 §2): 1,000 `claim.conversion.processed`
 * events packed as the relay packs them (relay.ts: each payload as PostgreSQL's jsonb text), then CPU µs
 * an event for the whole unpack (consumerJobData.parse) and each of its stages apart, and for every
 * payload's parse by its contract (what consumer.ts's readEvent does). One process, no stack:
 *
 *   node -r ./scripts/register-ts.js bench/unpack-events.ts
 *
 * UNPACK_BATCHES (200) batches a stage after a warm-up, UNPACK_ROUNDS (2) times over; the garbage is
 * collected before each stage's clock stops, so a stage pays for what it leaves.
 */
import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EventPayload } from '../services/platform/events/contracts';
import { payloadContract } from '../services/platform/outbox/consumer';
import { consumerJobData, type EventJobData, eventsOfJob, packedEvents, packEventsJson } from '../services/platform/outbox/event';

const EVENTS = 1_000;
const batches = Number(process.env.UNPACK_BATCHES ?? 200);
const rounds = Number(process.env.UNPACK_ROUNDS ?? 2);

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * A paid conversion as the claim service writes it in the bench's `conversions` phase (bench/claim.ts: terms
 * paying the user 0.5 % and the affiliate 10 %, half the users referred): every other one attributed to an
 * affiliate (no upline), the others paying the user alone.
 */
function processedPayload(n: number): EventPayload<'claim.conversion.processed'> {
  const user = (identifier: string) => ({ identifier, identifier_type: 'evm_address' as const });
  const wallet = (seed: number) => `0x${seed.toString(16).padStart(40, '0')}`;
  const currencyId = '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f';
  const referred = n % 2 === 0;
  const affiliate = { id: String(10_000 + (n % 500)), user: user(wallet(n % 500)) };
  return {
    conversion_id: `conv-${randomUUID()}`,
    name: 'trade',
    status: 'processed',
    occurred_at: new Date(Date.UTC(2026, 10, 29, 12, 0, n % 60, n % 1000)).toISOString(),
    user: user(wallet(1_000_000 + n)),
    affiliate: referred ? affiliate : null,
    master: null,
    ...(referred ? { upline: [] } : {}),
    tier_id: null,
    volume_usd: `${1_000 + n}.25`,
    revenue_usd: `${10 + (n % 90)}.5`,
    currency_id: currencyId,
    currency: { id: currencyId, chain_id: '8453', address: wallet(0xc0ffee), name: 'USDC', decimals: 6, type: 'erc20' },
    payouts: [
      ...(referred ? [{ kind: 'affiliate_payout' as const, user: affiliate.user, amount: String(4_000_000 + n), level: 1 }] : []),
      { kind: 'end_user_payout', user: user(wallet(1_000_000 + n)), amount: String(200_000 + n) },
    ],
  };
}

/** JSON as PostgreSQL's jsonb prints it (`payload::text`, which the relay packs): keys by length then bytes, `": "` and `", "`. */
function jsonbText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${JSON.stringify(key)}: ${jsonbText((value as Record<string, unknown>)[key])}`).join(', ')}}`;
}

/** The relay's JSON of a batch (relay.ts), and the packed job it queues. */
const projectId = randomUUID();
const rows = Array.from({ length: EVENTS }, (_, n) => ({
  id: randomUUID(),
  payload: processedPayload(n),
  createdAt: new Date(Date.UTC(2026, 10, 29, 12, 0, 0, n)),
}));
const json = `[${rows.map((row) => `{"id":${JSON.stringify(row.id)},"type":"claim.conversion.processed","projectId":${JSON.stringify(projectId)},"payload":${jsonbText(row.payload)},"createdAt":"${row.createdAt.toISOString()}"}`).join(',')}]`;
const pack = packEventsJson(rows[0]!.id, EVENTS, json);
const inflated = () => inflateRawSync(Buffer.from(pack.packed, 'base64')).toString('utf8');
const parsedEvents = JSON.parse(json) as unknown[];
const events: EventJobData[] = eventsOfJob(consumerJobData.parse(pack));
const contract = payloadContract('claim.conversion.processed');

const stages: Array<[string, () => unknown]> = [
  ['consumerJobData.parse of the packed job (the three below)', () => consumerJobData.parse(pack)],
  ['  base64 and inflating', inflated],
  ['  JSON.parse', () => JSON.parse(json)],
  ['  the envelopes check', () => packedEvents.parse(parsedEvents)],
  ['every payload by its contract (readEvent)', () => events.map((event) => contract.safeParse(event.payload))],
];

/** CPU µs an event of `batches` runs of `stage`, the garbage it left collected before the clock stops. */
function measure(stage: () => unknown): number {
  collectGarbage();
  const start = process.cpuUsage();
  for (let batch = 0; batch < batches; batch++) stage();
  collectGarbage();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (batches * EVENTS);
}

console.log(`${EVENTS} claim.conversion.processed events: ${json.length} bytes of JSON, ${pack.packed.length} packed (base64)`);
for (const [, stage] of stages) for (let warm = 0; warm < 20; warm++) stage();
const figures = stages.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) stages.forEach(([, stage], index) => figures[index]!.push(measure(stage)));
for (const [index, [name]] of stages.entries())
  console.log(`${name.padEnd(60)} ${figures[index]!.map((us) => us.toFixed(2)).join('  ')} µs an event`);
