/**
 * The SQL the services write by hand, rendered for review (immich's `@GenerateSql` is the model):
 * every fixed text sent as a named prepared statement, the affiliate list's statement for each
 * shape of request it is built from (its filters and sorts), and the statements of the set-based
 * writers (the ledger's payment, the metrics projection, the outbox relay) as the real code sends
 * them to a recording database (recording-database.ts). Checked in beside the code as
 * `services/<service>/repositories/queries.sql` (the relay's as `services/platform/outbox/queries.sql`);
 * `npm run sql:snapshots` writes them again, and test/unit/db/sql-snapshots.test.ts fails while a
 * file differs, so a changed statement shows in review.
 */
import { fixedStatements } from '../../services/platform/db/prepared-statements';
import { SERVICE_CATALOG, type ServiceName } from '../../services/platform/service-catalog';
import { type AffiliateFilters, type AffiliateSort, DEFAULT_AFFILIATE_SORT } from '../../services/agency/repositories/affiliate-list/query';
import { pageStatement } from '../../services/agency/repositories/affiliate-list/page-statement';
// Loading the services registers their fixed texts (at module load, as in a running process).
import '../../services/manifests';
import { type ConversionFact, recomputeProjectMetrics, recordConversions } from '../../services/agency/repositories/affiliate-metrics.repository';
import type { AgencyDatabase } from '../../services/agency/database';
import { OutboxRelay } from '../../services/platform/outbox/relay';
import type { OutboxTables } from '../../services/platform/outbox/tables';
import type { QueueKit } from '../../services/platform/queue';
import type { Logger } from '../../services/platform/logger';
import type { ConversionOutcome } from '../../services/claim/repositories/conversion-outcome';
import { LedgerRepository } from '../../services/claim/repositories/ledger.repository';
import type { ClaimDatabase } from '../../services/claim/database';
import { ReconciliationRepository } from '../../services/claim/repositories/reconciliation.repository';
import { recordingDatabase, type RecordedStatement } from './recording-database';

const PROJECT = '00000000-0000-4000-8000-000000000001';
const AUDIENCES = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];

/** The affiliate list's shapes: no filter, each filter alone, filters together, each sort, a deep page. */
const AFFILIATE_LIST_CASES: Array<{ name: string; filters: AffiliateFilters; sort?: AffiliateSort; offset?: number }> = [
  { name: 'no filter, newest first', filters: {} },
  { name: 'status', filters: { status: 'active' } },
  { name: 'region', filters: { region: 'DE' } },
  { name: 'q (identifier or name prefix)', filters: { q: '0xab' } },
  { name: 'one audience', filters: { audienceId: AUDIENCES[0] } },
  { name: 'any of two audiences', filters: { anyAudienceIds: AUDIENCES } },
  { name: 'conversion names', filters: { conversionNames: ['trade', 'deposit'] } },
  { name: 'status, region and an audience', filters: { status: 'suspended', region: 'US', audienceId: AUDIENCES[0] } },
  ...(['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd', 'clicks'] as const).map((by) => ({
    name: `by ${by}, ascending`,
    filters: {},
    sort: { by, order: 'asc' as const },
  })),
  { name: 'a deep page (read from the far end)', filters: {}, offset: 5_000 },
];

const owner = (name: string): ServiceName | undefined =>
  (Object.keys(SERVICE_CATALOG) as ServiceName[]).find((service) => name.startsWith(`${service}_`));

const NOW = new Date('2026-01-01T00:00:00.000Z');
const AFFILIATE = '00000000-0000-4000-8000-0000000000af';
const MASTER = '00000000-0000-4000-8000-0000000000aa';
const CURRENCY = '00000000-0000-4000-8000-0000000000c1';

/** Parameters as JSON: big integers as their digits, dates as ISO text. */
const parameterJson = (values: readonly unknown[]) =>
  JSON.stringify(values, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

function block(title: string, text: string, values?: readonly unknown[]): string {
  const parameters = values === undefined ? '' : `-- parameters: ${parameterJson(values)}\n`;
  return `-- ${title}\n${parameters}${text.trim()}\n`;
}

/** Each statement a call sent (a text it sent again, e.g. the relay's next round, once), numbered when there are several. */
function blocks(title: string, sent: RecordedStatement[]): string[] {
  const statements = sent.filter((statement, i) => sent.findIndex((other) => other.sql === statement.sql) === i);
  return statements.map((statement, i) =>
    block(statements.length > 1 ? `${title} (${i + 1} of ${statements.length})` : title, statement.sql, statement.parameters),
  );
}

const fact = (conversionId: string, masterId: string | null): ConversionFact => ({
  conversionId,
  name: 'trade',
  status: 'processed',
  occurredAt: NOW,
  user: { identifier: '0x00000000000000000000000000000000000000e1', identifierType: 'evm_address' },
  affiliateId: AFFILIATE,
  masterId,
  spreadBps: masterId === null ? null : 1000,
  tierId: null,
  volumeUsd: '100.5',
  revenueUsd: '2',
  currencyId: CURRENCY,
  affiliatePayout: 900n,
  agencyPayout: masterId === null ? 0n : 100n,
});

/** The agency's metrics projection: a relayed batch of facts, and the rebuild. */
async function metricsStatements(): Promise<string[]> {
  const batch = recordingDatabase<AgencyDatabase>();
  await batch.db.transaction().execute((trx) => recordConversions(trx, PROJECT, [fact('c-1', null), fact('c-2', MASTER)], NOW));
  const rebuild = recordingDatabase<AgencyDatabase>();
  await rebuild.db.transaction().execute((trx) => recomputeProjectMetrics(trx, PROJECT, NOW));
  return [
    ...blocks('metrics: a batch of conversion facts (recordConversions)', batch.statements),
    ...blocks('metrics: the rebuild (recomputeProjectMetrics)', rebuild.statements),
  ];
}

const outcome = (id: string, pendingReason: ConversionOutcome['pendingReason']): ConversionOutcome => ({
  id,
  status: 'processed',
  failureReason: null,
  currencyId: CURRENCY,
  attribution: {
    affiliate: { id: AFFILIATE, user: { identifier: '0x00000000000000000000000000000000000000af', identifierType: 'evm_address' } },
    master: null,
    upline: [],
    tierId: null,
    rebateBps: 0,
  },
  movements: [
    {
      kind: 'end_user_payout',
      beneficiary: { identifier: '0x00000000000000000000000000000000000000e1', identifierType: 'evm_address' },
      amount: 100n,
    },
    {
      kind: 'affiliate_payout',
      beneficiary: { identifier: '0x00000000000000000000000000000000000000af', identifierType: 'evm_address' },
      amount: 900n,
    },
  ],
  eligibility: { endUser: null, affiliate: null },
  pendingReason,
  review: null,
  holdDays: pendingReason === null ? 0 : 30,
  caps: null,
});

/** An outcome whose affiliate's code rebates 10% of its reward to the user: 900 split into 810 kept and 90 rebated. */
const withRebate = (plain: ConversionOutcome): ConversionOutcome => ({
  ...plain,
  attribution: plain.attribution && { ...plain.attribution, rebateBps: 1_000 },
  movements: [
    ...plain.movements.map((movement) => (movement.kind === 'affiliate_payout' ? { ...movement, amount: 810n } : movement)),
    {
      kind: 'end_user_payout',
      beneficiary: { identifier: '0x00000000000000000000000000000000000000e1', identifierType: 'evm_address' },
      amount: 90n,
      rebate: true,
    },
  ],
});

/** The claim service's payment of a batch: one conversion paid at once, one held (its movements pending, in no check). */
async function ledgerStatements(): Promise<string[]> {
  const { db, statements } = recordingDatabase<ClaimDatabase>((text) =>
    text.trimStart().startsWith('UPDATE conversions')
      ? [{ id: 'c-1' }, { id: 'c-2' }]
      : text.trimStart().startsWith('WITH planned')
        ? [{ movements: '2', held: '2' }]
        : [],
  );
  await new LedgerRepository(db).record(
    PROJECT,
    '00000000-0000-4000-8000-0000000000b1',
    [outcome('c-1', null), outcome('c-2', 'hold')],
    NOW,
    () => [],
  );
  return blocks('ledger: a batch paid, one conversion at once and one held (LedgerRepository.record)', statements);
}

/**
 * A batch paid under terms with caps, one conversion at once (its affiliate's code rebating 10%) and one
 * held: the locks of the beneficiaries' totals, the totals read in one statement (an affiliate's with its
 * rebates), then the payment with the capped and rebate columns.
 */
async function cappedLedgerStatements(): Promise<string[]> {
  const { db, statements } = recordingDatabase<ClaimDatabase>((text) =>
    text.trimStart().startsWith('UPDATE conversions')
      ? [{ id: 'c-1' }, { id: 'c-2' }]
      : text.trimStart().startsWith('WITH planned')
        ? [{ movements: '3', held: '2' }]
        : [],
  );
  const caps = { termsName: 'trade', caps: { perConversion: 500n, perEndUser: 150n, perAffiliateWindow: { amount: 1_000n, days: 30 } } };
  await new LedgerRepository(db).record(
    PROJECT,
    '00000000-0000-4000-8000-0000000000b2',
    [
      { ...withRebate(outcome('c-1', null)), caps },
      { ...outcome('c-2', 'hold'), caps },
    ],
    NOW,
    () => [],
  );
  return blocks(
    'ledger: a batch paid under caps, one conversion at once with a rebate and one held (LedgerRepository.record, applyCaps)',
    statements,
  );
}

/** The reconciliation's one statement: every currency of the project, then one currency. */
async function reconciliationStatements(): Promise<string[]> {
  const { db, statements } = recordingDatabase<ClaimDatabase>(() => []);
  const repository = new ReconciliationRepository(db);
  await repository.figures(PROJECT, undefined);
  await repository.figures(PROJECT, CURRENCY);
  return blocks('reconciliation: every currency, then one (ReconciliationRepository.figures)', statements);
}

/** The outbox relay's pass: Redis lost its data (the replay), one round of one event, the prune. */
async function relayStatements(): Promise<string[]> {
  let rounds = 0;
  const pending = {
    seq: 1n,
    id: '00000000-0000-4000-8000-0000000000e0',
    type: 'example.happened',
    project_id: PROJECT,
    payload_text: '{}',
    created_at: NOW,
  };
  const { db, statements } = recordingDatabase<OutboxTables>((text) =>
    /FROM outbox_pending ORDER BY seq/.test(text) && rounds++ === 0 ? [pending] : [],
  );
  const queues = {
    isAvailable: () => true,
    hasMarker: async () => false,
    setMarker: async () => undefined,
    enqueueMany: async () => undefined,
  } as unknown as QueueKit;
  const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  await new OutboxRelay(db, queues, {
    service: 'example',
    clock: { now: () => NOW },
    logger,
    batchSize: 500,
    retentionMs: 86_400_000,
    consumers: [],
  }).pass();
  return blocks('outbox relay: one pass (replay after Redis lost its data, a round, the prune)', statements);
}

/** The files' contents, by path from the repository root. */
export async function renderSqlSnapshots(): Promise<Record<string, string>> {
  const byService = new Map<ServiceName, string[]>();
  const add = (service: ServiceName, text: string) => byService.set(service, [...(byService.get(service) ?? []), text]);
  for (const [name, text] of [...fixedStatements()].sort(([a], [b]) => a.localeCompare(b))) {
    const service = owner(name);
    if (service === undefined) throw new Error(`the prepared statement ${name} names no service (its name must start with <service>_)`);
    add(service, block(`prepared statement ${name}`, text));
  }
  for (const { name, filters, sort, offset } of AFFILIATE_LIST_CASES) {
    const statement = pageStatement(PROJECT, filters, { page: 1, pageSize: 25, offset: offset ?? 0 }, sort ?? DEFAULT_AFFILIATE_SORT);
    add('agency', block(`affiliate list page: ${name}`, statement.text, statement.values));
  }
  for (const text of await metricsStatements()) add('agency', text);
  for (const text of await ledgerStatements()) add('claim', text);
  for (const text of await cappedLedgerStatements()) add('claim', text);
  for (const text of await reconciliationStatements()) add('claim', text);
  const header =
    '-- Generated by `npm run sql:snapshots` (scripts/sql-snapshots/): the hand-written SQL of this service, for review.\n-- Do not edit: change the code, then run the script.\n';
  return Object.fromEntries([
    ...[...byService].map(([service, texts]) => [`services/${service}/repositories/queries.sql`, `${header}\n${texts.join('\n')}`]),
    ['services/platform/outbox/queries.sql', `${header}\n${(await relayStatements()).join('\n')}`],
  ]);
}
