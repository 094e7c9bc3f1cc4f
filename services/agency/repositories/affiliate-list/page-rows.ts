import { CompiledQuery, type Kysely } from 'kysely';
import { preparedStatement } from '../../../platform/db/prepared-statements';
import type { IdentifierType } from '../../../rules/identifiers';
import type { EffectiveTaxStatusName, TaxRecordStatus } from '../../../rules/tax-status-rule';
import type { AgencyDatabase } from '../../database';
import type { TierView } from '../../domain/audience-directory';
import { type AffiliateCodeRecord, type AffiliateRecord, type AffiliateRow, toAffiliateRecord } from '../affiliate-record';
import type { AffiliateMetricsRecord, EarningRecord } from '../affiliate-metrics.repository';
import type { MasterRelation } from '../master.repository';
import { taxStatusOf } from '../tax-status.repository';
import type { TierProtectionRecord } from '../tier-protection.repository';

/**
 * An affiliate as the list shows it: its row, codes, figures and earnings, master relation,
 * protection in force, its current tier and the protected tier (while that still is a tier), and
 * its effective tax status at the list's `now` (from the tax status projection, migration 0011).
 */
export interface AffiliateListRecord extends AffiliateRecord {
  metrics: AffiliateMetricsRecord;
  relation: MasterRelation;
  protection: TierProtectionRecord | undefined;
  currentTier: TierView | null;
  protectedTier: TierView | null;
  taxStatus: EffectiveTaxStatusName;
}

interface PageRow extends AffiliateRow {
  volume_usd: string | null;
  revenue_usd: string | null;
  conversions: bigint | null;
  end_users: bigint | null;
  converting_users: bigint | null;
  referred_volume_usd: string | null;
  clicks: bigint | null;
  /** [code, created_at, uses, user_rebate_rate_bps] per code, oldest first. */
  codes: Array<[string, string, number, number | null]> | null;
  /** [kind, currency_id, amount, chain_id, address, name, decimals] per currency, by name. */
  earnings: Array<['affiliate' | 'agency', string, string, string | null, string | null, string | null, number | null]> | null;
  is_master: boolean;
  master_id: string | null;
  master_identifier: string | null;
  master_identifier_type: IdentifierType | null;
  protected_tier_id: string | null;
  protection_starts_at: Date | null;
  protection_expires_at: Date | null;
  protected_tier_name: string | null;
  protected_tier_rank: number | null;
  current_tier_id: string | null;
  current_tier_name: string | null;
  current_tier_rank: number | null;
  tax_record_status: TaxRecordStatus | null;
  tax_expires_at: Date | null;
  require_tax_info: boolean | null;
}

/**
 * The rows of a page, given its ids in order: each affiliate joined to everything an item shows,
 * its current tier (its highest-ranked tier segment among its present memberships, as
 * SegmentTierRepository.tiers and RESOLVE_ATTRIBUTION_SQL read it) and its protected tier's name.
 * Codes and earnings come as JSON arrays (one row per affiliate, no fan-out); a code's uses are
 * counted as AffiliateRepository.withCodes counts them. The tax status projection's facts (the
 * user's current record, the project's require_tax_info) come along, for the shared rule to read
 * at `now` (taxStatusOf): no call to the tax service. A fixed text sent as a prepared statement:
 * planning this many joins cost more than running them. $1 the ids, $2 the project, $3 now.
 */
const PAGE_ROWS_SQL = preparedStatement(
  'agency_affiliate_list_rows',
  `SELECT a.id, a.project_id, a.identifier_type, a.identifier, a.name, a.region, a.status, a.joined_at, a.updated_at,
       s.suspended_at, s.reason AS suspension_reason, fl.flagged_at, fl.reason AS flag_reason,
       m.volume_usd::text AS volume_usd, m.revenue_usd::text AS revenue_usd, m.conversions, m.end_users, m.converting_users,
       m.referred_volume_usd::text AS referred_volume_usd, m.clicks,
       codes.list AS codes, earnings.list AS earnings,
       d.id IS NOT NULL AS is_master, ma.id AS master_id, ma.identifier AS master_identifier, ma.identifier_type AS master_identifier_type,
       tp.tier_id AS protected_tier_id, tp.starts_at AS protection_starts_at, tp.expires_at AS protection_expires_at,
       pt.name AS protected_tier_name, pt.tier_rank AS protected_tier_rank,
       ct.segment_id AS current_tier_id, ct.name AS current_tier_name, ct.tier_rank AS current_tier_rank,
       tx.status AS tax_record_status, tx.expires_at AS tax_expires_at, txr.require_tax_info
FROM unnest($1::uuid[]) WITH ORDINALITY AS page(id, ord)
JOIN affiliates a ON a.id = page.id AND a.project_id = $2
LEFT JOIN affiliate_suspensions s ON s.affiliate_id = a.id AND s.reactivated_at IS NULL
LEFT JOIN affiliate_flags fl ON fl.affiliate_id = a.id AND fl.unflagged_at IS NULL
LEFT JOIN affiliate_metrics m ON m.affiliate_id = a.id AND m.project_id = $2
LEFT JOIN agency_designations d ON d.affiliate_id = a.id AND d.removed_at IS NULL
LEFT JOIN sub_affiliate_bindings b ON b.affiliate_id = a.id AND b.bound_to IS NULL
LEFT JOIN affiliates ma ON ma.id = b.master_id
LEFT JOIN tax_statuses tx ON tx.project_id = $2 AND tx.identifier_type = a.identifier_type AND tx.identifier = a.identifier
LEFT JOIN tax_requirements txr ON txr.project_id = $2
LEFT JOIN LATERAL (
  SELECT t.tier_id, t.starts_at, t.expires_at FROM tier_protections t
  WHERE t.affiliate_id = a.id AND t.starts_at <= $3 AND t.expires_at > $3 AND (t.ended_at IS NULL OR t.ended_at > $3)
  ORDER BY t.starts_at DESC LIMIT 1
) tp ON true
LEFT JOIN segment_tiers pt ON pt.segment_id = tp.tier_id AND pt.project_id = $2 AND pt.tier_rank IS NOT NULL
LEFT JOIN LATERAL (
  SELECT st.segment_id, st.name, st.tier_rank
  FROM audience_memberships am JOIN segment_tiers st ON st.segment_id = am.segment_id AND st.tier_rank IS NOT NULL
  WHERE am.project_id = $2 AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present
  ORDER BY st.tier_rank DESC, st.segment_id LIMIT 1
) ct ON true
LEFT JOIN LATERAL (
  SELECT json_agg(json_build_array(c.code, c.created_at,
           (SELECT count(*) FROM referrals r WHERE r.affiliate_id = c.affiliate_id AND r.code = c.code), c.user_rebate_rate_bps) ORDER BY c.id) AS list
  FROM affiliate_codes c WHERE c.affiliate_id = a.id
) codes ON true
LEFT JOIN LATERAL (
  SELECT json_agg(json_build_array(e.kind, e.currency_id, e.amount::text, cur.chain_id::text, cur.address, cur.name, cur.decimals)
           ORDER BY cur.name, e.currency_id) AS list
  FROM affiliate_earnings e LEFT JOIN metric_currencies cur ON cur.id = e.currency_id
  WHERE e.affiliate_id = a.id AND e.project_id = $2
) earnings ON true
ORDER BY page.ord`,
);

/** The rows of a page, in the order of `pageIds` (read with the page's total: pageStatement, ./page-statement.ts). */
export async function listPage(db: Kysely<AgencyDatabase>, projectId: string, pageIds: readonly string[], now: Date): Promise<AffiliateListRecord[]> {
  if (pageIds.length === 0) return [];
  const { rows } = await db.executeQuery<PageRow>(CompiledQuery.raw(PAGE_ROWS_SQL, [pageIds, projectId, now]));
  return rows.map((row) => toListRecord(row, now));
}

function toListRecord(row: PageRow, now: Date): AffiliateListRecord {
  const earnings: EarningRecord[] = [];
  const agencyEarnings: EarningRecord[] = [];
  for (const [kind, currencyId, amount, chainId, address, name, decimals] of row.earnings ?? []) {
    const record: EarningRecord = {
      currencyId,
      amount: BigInt(amount),
      currency: address === null ? null : { id: currencyId, chainId: chainId!, address, name: name!, decimals: decimals! },
    };
    (kind === 'affiliate' ? earnings : agencyEarnings).push(record);
  }
  const codes: AffiliateCodeRecord[] = (row.codes ?? []).map(([code, createdAt, uses, userRebateRateBps]) => ({
    code,
    uses: BigInt(uses),
    createdAt: new Date(createdAt),
    userRebateRateBps,
  }));
  // Added to the affiliate's record, not spread into a new object: an object spread followed by more
  // properties takes V8's slow path, and this runs for every item of every page (toListRecord was the
  // agency's largest own cost per page in a profile of the list at 50 connections).
  return Object.assign(toAffiliateRecord(row, codes), {
    // Every affiliate has its metrics row; were one missing, it reads as zeros (as metricsOf answers).
    metrics: {
      volumeUsd: row.volume_usd ?? '0',
      revenueUsd: row.revenue_usd ?? '0',
      conversions: row.conversions ?? 0n,
      endUsers: row.end_users ?? 0n,
      convertingUsers: row.converting_users ?? 0n,
      referredVolumeUsd: row.referred_volume_usd ?? '0',
      clicks: row.clicks ?? 0n,
      earnings,
      agencyEarnings,
    },
    relation: {
      isMaster: row.is_master,
      master:
        row.master_id && row.master_identifier && row.master_identifier_type
          ? { id: row.master_id, user: { identifier: row.master_identifier, identifierType: row.master_identifier_type } }
          : null,
    },
    protection:
      row.protected_tier_id === null
        ? undefined
        : { tierId: row.protected_tier_id, startsAt: row.protection_starts_at!, expiresAt: row.protection_expires_at! },
    currentTier: row.current_tier_id === null ? null : { id: row.current_tier_id, name: row.current_tier_name!, rank: row.current_tier_rank! },
    protectedTier:
      row.protected_tier_id === null || row.protected_tier_rank === null
        ? null
        : { id: row.protected_tier_id, name: row.protected_tier_name!, rank: row.protected_tier_rank },
    taxStatus: taxStatusOf(row.require_tax_info, row.tax_record_status, row.tax_expires_at, now),
  });
}
