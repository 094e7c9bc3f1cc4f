import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { ClaimDatabase } from '../../../services/claim/database';
import { claimMigrations } from '../../../services/claim/migrations';
import { MovementRepository } from '../../../services/claim/repositories/movement.repository';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';
import { evmAddress } from '../../helpers/evm-addresses';
import { LogCapture } from '../../helpers/log-capture';
import { type DatabaseBeforeMigration, databaseBeforeMigration } from '../../helpers/migration-database';

const SCHEMA = SERVICE_CATALOG.claim.schema;
const NOW = new Date('2026-11-21T12:00:00.000Z');

/**
 * Migration 0010 (movement_statuses) on a ledger and terms written before it: existing movements are
 * available (in their checks, as they were), available since they were written; existing terms hold
 * nothing and need no approval; and the trigger still refuses changing them, now letting only a
 * pending movement's status move forward.
 */
describe('migration movement_statuses: the ledger written before it', () => {
  const logs = new LogCapture();
  let database: DatabaseBeforeMigration<ClaimDatabase>;
  const projectId = randomUUID();
  const currencyId = randomUUID();
  const user = { identifier: evmAddress(1), identifierType: 'evm_address' as const };

  beforeAll(async () => {
    database = await databaseBeforeMigration<ClaimDatabase>(SCHEMA, claimMigrations, (name) => name.endsWith('_movement_statuses'), logs);

    // As the code before statuses wrote them: terms, a paid conversion, its movement in an open check.
    await sql`
      INSERT INTO currencies (id, project_id, chain_id, address, name, decimals, type, created_at)
      VALUES (${currencyId}, ${projectId}, 8453, ${evmAddress(99)}, 'USDC', 6, 'erc20', ${NOW})`.execute(database.db);
    await sql`
      INSERT INTO payout_terms (project_id, conversion_name, currency_id, end_user_fixed, created_at, updated_at)
      VALUES (${projectId}, 'trade', ${currencyId}, 5, ${NOW}, ${NOW})`.execute(database.db);
    const batchId = randomUUID();
    await sql`INSERT INTO conversion_batches (id, project_id, received, created_at, finished_at) VALUES (${batchId}, ${projectId}, 1, ${NOW}, ${NOW})`.execute(
      database.db,
    );
    await sql`
      INSERT INTO conversions (project_id, id, batch_id, request_hash, name, identifier_type, identifier, occurred_at, received_at, status, processed_at, currency_id)
      VALUES (${projectId}, 'old', ${batchId}, ${Buffer.alloc(32)}, 'trade', ${user.identifierType}, ${user.identifier}, ${NOW}, ${NOW}, 'processed', ${NOW}, ${currencyId})`.execute(
      database.db,
    );
    const { rows } = await sql<{ id: string }>`
      INSERT INTO claim_checks (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
      VALUES (${projectId}, ${user.identifierType}, ${user.identifier}, ${currencyId}, 'end_user', 'open', 5, 1, ${NOW}, ${NOW}) RETURNING id`.execute(
      database.db,
    );
    await sql`
      INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, created_at)
      VALUES (${projectId}, 'old', 'end_user_payout', ${user.identifierType}, ${user.identifier}, ${currencyId}, 5, ${rows[0]!.id}, ${NOW})`.execute(
      database.db,
    );

    await database.migrateRest();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('reads an existing movement as available since it was written, in its check, and existing terms as holding nothing', async () => {
    const movements = await new MovementRepository(database.db).ofConversions(projectId, ['old']);
    expect(movements.get('old')).toEqual([
      expect.objectContaining({ status: 'available', pendingReason: null, availableAt: NOW, claimCheckStatus: 'open', decision: null, amount: 5n }),
    ]);
    const terms = await sql<{ hold_days: number; require_approval: boolean }>`SELECT hold_days, require_approval FROM payout_terms`.execute(
      database.db,
    );
    expect(terms.rows).toEqual([{ hold_days: 0, require_approval: false }]);
  });

  it('still refuses changing or deleting an existing movement', async () => {
    for (const change of [
      sql`UPDATE movements SET amount = 6`,
      sql`UPDATE movements SET status = 'declined', claim_check_id = NULL`,
      sql`UPDATE movements SET available_at = ${NOW}`,
      sql`DELETE FROM movements`,
    ]) {
      await expect(change.execute(database.db)).rejects.toMatchObject({ code: '23001' });
    }
  });

  it('refuses a new movement without available_at, or pending in a check', async () => {
    const { rows } = await sql<{ id: string }>`SELECT claim_check_id AS id FROM movements`.execute(database.db);
    await expect(
      sql`
        INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, created_at)
        VALUES (${projectId}, 'old', 'agency_payout', 'evm_address', ${evmAddress(2)}, ${currencyId}, 1, ${rows[0]!.id}, ${NOW})`.execute(
        database.db,
      ),
    ).rejects.toMatchObject({ code: '23514', constraint: 'movements_available_at_check' });
    await expect(
      sql`
        INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, status, pending_reason, available_at, created_at)
        VALUES (${projectId}, 'old', 'agency_payout', 'evm_address', ${evmAddress(2)}, ${currencyId}, 1, ${rows[0]!.id}, 'pending', 'hold', ${NOW}, ${NOW})`.execute(
        database.db,
      ),
    ).rejects.toMatchObject({ code: '23514', constraint: 'movements_check_status_check' });
  });
});
