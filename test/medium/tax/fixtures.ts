import { randomUUID } from 'node:crypto';
import { camelCase } from '../../../gateway/http/present';
import type { TaxDomain } from '../../../services/tax/composition';
import type { TaxFormInput } from '../../../services/tax/domain/tax-form';
import type { DomainHarness } from '../../helpers/domain';
import type { TaxDatabase } from '../../../services/tax/database';
import { randomEvmAddress } from '../../helpers/evm-addresses';

/**
 * The HTTP tests' forms (test/tax/tax-forms.ts), as the domain takes them: camelCase, as the gRPC
 * layer passes them. Unchecked on purpose: tests hand the rules wrong values and missing fields.
 */
export function formInput(body: Record<string, unknown>): TaxFormInput {
  return camelCase(body) as unknown as TaxFormInput;
}

export const newUser = () => ({ identifier: randomEvmAddress(), identifierType: 'evm_address' });

type TaxHarness = DomainHarness<TaxDomain, TaxDatabase>;

/** An admin API key's id: who approves and revokes. */
export const ADMIN = randomUUID();

/** A project of its own for a test; `requireTaxInfo` as the project's settings say. */
export async function newProject(harness: TaxHarness, settings: { requireTaxInfo?: boolean; w8ExpiryRule?: string } = {}) {
  const projectId = randomUUID();
  const mask = [
    ...(settings.requireTaxInfo === undefined ? [] : ['require_tax_info']),
    ...(settings.w8ExpiryRule === undefined ? [] : ['w8_expiry_rule']),
  ];
  if (mask.length > 0) await harness.domain.settings.update(projectId, mask, settings);
  return projectId;
}

/** The status history of a user, oldest first, as "from->to". */
export async function transitions(harness: TaxHarness, projectId: string, identifier: string): Promise<string[]> {
  const { rows } = await harness.sql.query(
    'SELECT from_status, to_status FROM tax.tax_status_events WHERE project_id = $1 AND identifier = $2 ORDER BY id',
    [projectId, identifier],
  );
  return rows.map((row) => `${row.from_status}->${row.to_status}`);
}

export async function historyOf(harness: TaxHarness, projectId: string, identifier: string) {
  const { rows } = await harness.sql.query(
    'SELECT record_id, from_status, to_status, reason, actor_type, actor_id, occurred_at FROM tax.tax_status_events WHERE project_id = $1 AND identifier = $2 ORDER BY id',
    [projectId, identifier],
  );
  return rows;
}

/** Every record of a user, current last. */
export async function recordsOf(harness: TaxHarness, projectId: string, identifier: string) {
  const { rows } = await harness.sql.query(
    `SELECT id, status, superseded_at, superseded_by, expires_at, expired_at FROM tax.tax_records
     WHERE project_id = $1 AND identifier = $2 ORDER BY submitted_at, superseded_at NULLS LAST, id`,
    [projectId, identifier],
  );
  return rows;
}
