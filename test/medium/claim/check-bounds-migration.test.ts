import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { ClaimDatabase } from '../../../services/claim/database';
import { claimMigrations } from '../../../services/claim/migrations';
import { LedgerRepository } from '../../../services/claim/repositories/ledger.repository';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';
import { evmAddress } from '../../helpers/evm-addresses';
import { LogCapture } from '../../helpers/log-capture';
import { type DatabaseBeforeMigration, databaseBeforeMigration } from '../../helpers/migration-database';

const SCHEMA = SERVICE_CATALOG.claim.schema;
const MAX = 2n ** 256n - 1n;
const NOW = new Date('2026-11-21T12:00:00.000Z');

/**
 * Migration 0008 (claim_check_uint256) on checks written before amounts were bounded: an open check already past
 * 2^256 − 1 (which no voucher can pay) is marked full, so the user's next payouts go to a new
 * check instead of being locked in it; checks within the bound are left as they were; and from
 * then on the database refuses any check or movement past 2^256 − 1.
 */
describe('migration claim_check_uint256: checks past 2^256 − 1 stop taking payouts', () => {
  const logs = new LogCapture();
  let database: DatabaseBeforeMigration<ClaimDatabase>;
  const projectId = randomUUID();
  const currencyId = randomUUID();
  const locked: UserIdentifier = { identifier: evmAddress(1), identifierType: 'evm_address' };
  const sound: UserIdentifier = { identifier: evmAddress(2), identifierType: 'evm_address' };

  const openCheck = (user: UserIdentifier, amount: bigint) =>
    sql<{ id: string }>`
      INSERT INTO claim_checks (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
      VALUES (${projectId}, ${user.identifierType}, ${user.identifier}, ${currencyId}, 'end_user', 'open', ${amount.toString()}::numeric, 0, ${NOW}, ${NOW})
      RETURNING id`.execute(database.db);
  const checksOf = async (user: UserIdentifier) =>
    (
      await sql<{ amount: string; full: boolean }>`
        SELECT amount::text, full_at IS NOT NULL AS full FROM claim_checks WHERE project_id = ${projectId} AND identifier = ${user.identifier} AND status = 'open'
        ORDER BY full_at IS NULL, claim_checks.amount DESC`.execute(database.db)
    ).rows;

  beforeAll(async () => {
    database = await databaseBeforeMigration<ClaimDatabase>(SCHEMA, claimMigrations, (name) => name.endsWith('_claim_check_uint256'), logs);

    await sql`
      INSERT INTO currencies (id, project_id, chain_id, address, name, decimals, type, created_at)
      VALUES (${currencyId}, ${projectId}, 8453, ${evmAddress(99)}, 'USDC', 6, 'erc20', ${NOW})`.execute(database.db);
    // As the code before the bound wrote them: two payouts of 2^256 − 1 merged into one check.
    await openCheck(locked, 2n * MAX);
    await openCheck(sound, 7n);

    await database.migrateRest();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('marks the open check past 2^256 − 1 full and leaves one within the bound taking payouts', async () => {
    expect(await checksOf(locked)).toEqual([{ amount: (2n * MAX).toString(), full: true }]);
    expect(await checksOf(sound)).toEqual([{ amount: '7', full: false }]);
  });

  it('pays the locked user’s next payout into a new check, and the other user’s into its open one', async () => {
    const batchId = randomUUID();
    await sql`INSERT INTO conversion_batches (id, project_id, received, created_at) VALUES (${batchId}, ${projectId}, 2, ${NOW})`.execute(
      database.db,
    );
    for (const [id, user] of [
      ['after-1', locked],
      ['after-2', sound],
    ] as const) {
      await sql`
        INSERT INTO conversions (project_id, id, batch_id, request_hash, name, identifier_type, identifier, occurred_at, received_at, status)
        VALUES (${projectId}, ${id}, ${batchId}, ${Buffer.alloc(32)}, 'trade', ${user.identifierType}, ${user.identifier}, ${NOW}, ${NOW}, 'accepted')`.execute(
        database.db,
      );
    }
    const outcome = (id: string, user: UserIdentifier, amount: bigint) => ({
      id,
      status: 'processed' as const,
      failureReason: null,
      currencyId,
      attribution: null,
      movements: [{ kind: 'end_user_payout' as const, beneficiary: user, amount }],
      eligibility: null,
      pendingReason: null,
      review: null,
      holdDays: 0,
      caps: null,
    });
    const result = await new LedgerRepository(database.db).record(
      projectId,
      batchId,
      [outcome('after-1', locked, 5n), outcome('after-2', sound, 3n)],
      NOW,
      () => [],
    );
    expect(result.movements).toBe(2);
    expect(await checksOf(locked)).toEqual([
      { amount: (2n * MAX).toString(), full: true },
      { amount: '5', full: false },
    ]);
    expect(await checksOf(sound)).toEqual([{ amount: '10', full: false }]);
  });

  it('refuses from now on any check or movement past 2^256 − 1', async () => {
    await expect(openCheck({ identifier: evmAddress(3), identifierType: 'evm_address' }, MAX + 1n)).rejects.toMatchObject({
      code: '23514',
      constraint: 'claim_checks_amount_uint256',
    });
    expect((await openCheck({ identifier: evmAddress(4), identifierType: 'evm_address' }, MAX)).rows).toHaveLength(1);
  });
});
