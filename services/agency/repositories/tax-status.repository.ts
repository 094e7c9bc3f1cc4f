import type { Kysely } from 'kysely';
import { effectiveStatusOf, type EffectiveTaxStatusName, type TaxRecordStatus } from '../../rules/tax-status-rule';
import type { AgencyDatabase } from '../database';

/** A user's current tax record as the tax service announced it. */
export interface TaxStatusFact {
  identifier: string;
  identifierType: string;
  status: TaxRecordStatus;
  expiresAt: Date | null;
  /**
   * The tax service's order of the user's changes; null for an event written before it carried
   * one (older than every versioned fact, so it applies only where the projection has none).
   */
  version: bigint | null;
}

/**
 * The agency's projection of tax statuses (migration 0011), fed by the tax service's events.
 * Events may arrive late, twice or out of order: a row changes only for a higher version than the
 * one that set it, so a redelivery changes nothing and an older change never overwrites a newer one.
 */
export async function applyTaxStatuses(db: Kysely<AgencyDatabase>, projectId: string, facts: readonly TaxStatusFact[]): Promise<void> {
  // One row per user (the highest version): ON CONFLICT may not touch a row twice in one statement.
  const byUser = new Map<string, TaxStatusFact>();
  for (const fact of facts) {
    const key = `${fact.identifierType}:${fact.identifier}`;
    const seen = byUser.get(key);
    if (!seen || (seen.version ?? -1n) < (fact.version ?? -1n)) byUser.set(key, fact);
  }
  if (byUser.size === 0) return;
  await db
    .insertInto('tax_statuses')
    .values(
      [...byUser.values()].map((fact) => ({
        project_id: projectId,
        identifier_type: fact.identifierType,
        identifier: fact.identifier,
        status: fact.status,
        expires_at: fact.expiresAt,
        // A versionless fact is version 0: it fills an empty place, and any versioned change (1 and up) replaces it.
        version: fact.version ?? 0n,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['project_id', 'identifier_type', 'identifier'])
        .doUpdateSet({
          status: (eb) => eb.ref('excluded.status'),
          expires_at: (eb) => eb.ref('excluded.expires_at'),
          version: (eb) => eb.ref('excluded.version'),
        })
        .where('tax_statuses.version', '<', (eb) => eb.ref('excluded.version')),
    )
    .execute();
}

/** A project's require_tax_info as of the settings write numbered `version`: kept only if no later write was applied. */
export async function applyTaxRequirement(db: Kysely<AgencyDatabase>, projectId: string, requireTaxInfo: boolean, version: bigint): Promise<void> {
  await db
    .insertInto('tax_requirements')
    .values({ project_id: projectId, require_tax_info: requireTaxInfo, version })
    .onConflict((oc) =>
      oc
        .column('project_id')
        .doUpdateSet({ require_tax_info: (eb) => eb.ref('excluded.require_tax_info'), version: (eb) => eb.ref('excluded.version') })
        .where('tax_requirements.version', '<', (eb) => eb.ref('excluded.version')),
    )
    .execute();
}

/** The status a reader sees from the projection's columns (null: no row). */
export function taxStatusOf(
  requireTaxInfo: boolean | null,
  status: TaxRecordStatus | null,
  expiresAt: Date | null,
  now: Date,
): EffectiveTaxStatusName {
  return effectiveStatusOf(requireTaxInfo ?? false, status === null ? undefined : { status, expiresAt }, now);
}
