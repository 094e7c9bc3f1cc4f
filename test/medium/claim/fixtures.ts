import { randomUUID } from 'node:crypto';
import type { ConversionInputLike } from '../../../services/claim/domain/conversion-input';
import type { PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import type { ClaimHarness } from '../../helpers/claim-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';

/** A project of the test's own, with one currency (ERC-20 on chain 8453) and its id. */
export async function newProject(harness: ClaimHarness): Promise<{ projectId: string; currencyId: string }> {
  const projectId = randomUUID();
  const currency = await harness.domain.currencies.create(projectId, {
    chainId: '8453',
    address: randomEvmAddress(),
    name: 'USDC',
    decimals: 6,
    type: 'erc20',
  });
  return { projectId, currencyId: currency.id };
}

export function termsInput(currencyId: string, fields: Partial<PayoutTermsInput> = {}): PayoutTermsInput {
  return { currencyId, endUser: undefined, affiliate: undefined, tiers: [], ...fields };
}

export const newUser = () => ({ identifier: randomEvmAddress(), identifierType: 'evm_address' });

export function conversion(fields: Partial<ConversionInputLike> = {}): ConversionInputLike {
  return { id: `conv-${randomUUID()}`, name: 'trade', user: newUser(), rewardBase: '10000', ...fields };
}

/** An affiliate of the (fake) agency service, with one code. */
export function newAffiliate(harness: ClaimHarness, projectId: string) {
  const user = newUser();
  const code = `code${randomUUID().slice(0, 8)}`;
  const { id } = harness.agency.createAffiliate(projectId, user, code);
  return { id, user, code };
}

/** `user` referred by the affiliate holding `code` from now on (the test clock's now). */
export function refer(harness: ClaimHarness, projectId: string, user: { identifier: string; identifierType: string }, code: string): void {
  if (!harness.agency.refer(projectId, user, code)) throw new Error(`code ${code} does not refer ${user.identifier}`);
}

export interface MovementRow {
  conversion_id: string;
  kind: string;
  identifier: string;
  amount: string;
}

export async function movementsOf(harness: ClaimHarness, projectId: string): Promise<MovementRow[]> {
  const { rows } = await harness.sql.query<MovementRow>(
    'SELECT conversion_id, kind, identifier, amount::text FROM claim.movements WHERE project_id = $1 ORDER BY conversion_id, kind',
    [projectId],
  );
  return rows;
}

/** A project's movements with where each stands in the lifecycle (status, why it waits, when it becomes available, whether a check holds it, the decision). */
export async function movementStatesOf(harness: ClaimHarness, projectId: string) {
  const { rows } = await harness.sql.query<
    Omit<MovementRow, 'identifier'> & {
      status: string;
      pending_reason: string | null;
      available_at: Date;
      in_check: boolean;
      decided_by: string | null;
      decline_reason: string | null;
    }
  >(
    `SELECT conversion_id, kind, amount::text, status, pending_reason, available_at, claim_check_id IS NOT NULL AS in_check, decided_by, decline_reason
     FROM claim.movements WHERE project_id = $1 ORDER BY conversion_id, kind`,
    [projectId],
  );
  return rows;
}

/** The project's checks whose amount or movement count is not their movements' sum and count (none, in a sound ledger). */
export async function checksOffTheirMovements(harness: ClaimHarness, projectId: string): Promise<Array<{ id: string }>> {
  const { rows } = await harness.sql.query<{ id: string }>(
    `SELECT cc.id FROM claim.claim_checks cc WHERE cc.project_id = $1
       AND (cc.amount, cc.movements_count) <> (SELECT coalesce(sum(amount), 0), count(*)::int FROM claim.movements m WHERE m.claim_check_id = cc.id)`,
    [projectId],
  );
  return rows;
}

export async function checksOf(harness: ClaimHarness, projectId: string) {
  const { rows } = await harness.sql.query<{ identifier: string; reason: string; status: string; amount: string; movements_count: number }>(
    'SELECT identifier, reason, status, amount::text, movements_count FROM claim.claim_checks WHERE project_id = $1 ORDER BY identifier, reason, created_at',
    [projectId],
  );
  return rows;
}

export async function statusOf(harness: ClaimHarness, projectId: string, id: string) {
  return (await harness.domain.ledger.conversion(projectId, id)).status;
}

/** The batch a stored conversion is paid in. */
export async function batchOf(harness: ClaimHarness, projectId: string, id: string): Promise<string> {
  const { rows } = await harness.sql.query<{ batch_id: string }>('SELECT batch_id FROM claim.conversions WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
  ]);
  if (!rows[0]) throw new Error(`conversion ${id} is not stored`);
  return rows[0].batch_id;
}

/** Stores conversions and pays their batch at once (the job's step); answers what the payment recorded. */
export async function pay(harness: ClaimHarness, projectId: string, inputs: ConversionInputLike[]) {
  await harness.domain.conversions.submitMany(projectId, inputs);
  return harness.domain.payouts.payBatch(await batchOf(harness, projectId, inputs[0]!.id));
}

/** Stores and pays one conversion with these fields at once; answers its id. */
export async function payOne(harness: ClaimHarness, projectId: string, fields: Partial<ConversionInputLike>): Promise<string> {
  const input = conversion(fields);
  await pay(harness, projectId, [input]);
  return input.id;
}
