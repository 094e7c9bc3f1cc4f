import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import { findAffiliateId } from './affiliate-lock';
import { COUNTED_CONVERSIONS } from './affiliate-metrics.repository';

export interface HistoryRow {
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

export interface HistorySubject {
  affiliateId: string;
  projectId: string;
  user: UserIdentifier;
}

/** ISO-8601 UTC with milliseconds, as the API writes every time (to_jsonb would follow the session's zone). */
const iso = (column: string): RawBuilder<string> => sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An affiliate as a history entry names it (a master, a sub-affiliate). */
const ref = (table: string): RawBuilder<unknown> =>
  sql`jsonb_build_object('id', ${sql.ref(`${table}.id`)}, 'identifier', ${sql.ref(`${table}.identifier`)}, 'identifier_type', ${sql.ref(`${table}.identifier_type`)})`;

/**
 * The two sides of a binding: the sub-affiliate's history names its master, the master's names the
 * sub-affiliate (each an entry when bound and one when unbound).
 */
const BINDING_SIDES = {
  sub_affiliate: {
    bound: 'bound_to_master',
    unbound: 'unbound_from_master',
    own: 'affiliate_id',
    other: 'master',
    otherColumn: 'master_id',
    alias: 'm',
  },
  master: {
    bound: 'sub_affiliate_bound',
    unbound: 'sub_affiliate_unbound',
    own: 'master_id',
    other: 'affiliate',
    otherColumn: 'affiliate_id',
    alias: 'f',
  },
} as const;

/** The entries of the affiliate's bindings, on one side of them; an unbinding says whether the master's removal or a designation ended it. */
function bindingEntries(side: keyof typeof BINDING_SIDES, id: string): Array<RawBuilder<unknown>> {
  const { bound, unbound, own, other, otherColumn, alias } = BINDING_SIDES[side];
  const bindings = sql`sub_affiliate_bindings b JOIN affiliates ${sql.raw(alias)} ON ${sql.ref(`${alias}.id`)} = ${sql.ref(`b.${otherColumn}`)}`;
  return [
    sql`SELECT ${sql.lit(bound)}, b.bound_from, 'b:' || lpad(b.id::text, 19, '0') || ':0',
          jsonb_build_object(${sql.lit(other)}, ${ref(alias)}, 'by_api_key_id', b.bound_by)
        FROM ${bindings} WHERE ${sql.ref(`b.${own}`)} = ${id}`,
    sql`SELECT ${sql.lit(unbound)}, b.bound_to, 'b:' || lpad(b.id::text, 19, '0') || ':1',
          jsonb_build_object(${sql.lit(other)}, ${ref(alias)}, 'by_api_key_id', b.unbound_by,
            'master_removed', b.ended_by_designation_id IS NULL AND d.removed_at IS NOT NULL AND d.removed_at = b.bound_to,
            'became_master', b.ended_by_designation_id IS NOT NULL)
        FROM ${bindings} JOIN agency_designations d ON d.id = b.designation_id
        WHERE ${sql.ref(`b.${own}`)} = ${id} AND b.bound_to IS NOT NULL`,
  ];
}

/**
 * One `payouts` entry per UTC day and currency of one kind of payout, with the currency's details
 * (null while the projection has not learnt the currency): a reader needs its decimals to show the amount.
 */
function payoutsByDay(kind: 'affiliate_payout' | 'agency_payout', which: RawBuilder<unknown>): RawBuilder<unknown> {
  const day = sql`to_char(f.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const amount = kind === 'affiliate_payout' ? sql`f.affiliate_payout` : sql`f.agency_payout`;
  return sql`SELECT 'payouts', max(f.occurred_at), 'y:' || ${day} || ${kind === 'affiliate_payout' ? ':0:' : ':1:'} || f.currency_id,
      jsonb_build_object('date', ${day}, 'currency_id', f.currency_id, 'currency_chain_id', c.chain_id, 'currency_address', c.address,
        'currency_name', c.name, 'currency_decimals', c.decimals, 'kind', ${kind}::text, 'amount', sum(${amount})::text, 'conversions', ${COUNTED_CONVERSIONS})
    FROM conversion_facts f LEFT JOIN metric_currencies c ON c.id = f.currency_id
    WHERE ${which} AND f.currency_id IS NOT NULL
    GROUP BY ${day}, f.currency_id, c.id`;
}

/**
 * An affiliate's activity history: one UNION ALL over the agency's own history tables (every one of
 * them keeps its periods, never deletes), ordered by (at DESC, key DESC) and paged in SQL. `key` is
 * unique per entry (its table's prefix, its row id, a suffix per kind of entry), so entries at the
 * same instant keep one order from page to page. Raw SQL: the builder has no typed UNION of
 * differently built branches with a window count over them.
 */
export class AffiliateHistoryRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /** The affiliate's id, or undefined when the user is no affiliate of the project. */
  async affiliateId(projectId: string, user: UserIdentifier): Promise<string | undefined> {
    return findAffiliateId(this.db, projectId, user);
  }

  async page(subject: HistorySubject, now: Date, page: Page): Promise<{ rows: HistoryRow[]; total: number }> {
    const history = this.entries(subject, now);
    const result = await sql<HistoryRow & { total: string }>`
      WITH history AS (${history})
      SELECT type, at, data, count(*) OVER () AS total
      FROM history
      ORDER BY at DESC, key DESC
      LIMIT ${page.pageSize} OFFSET ${page.offset}`.execute(this.db);
    if (result.rows.length > 0) {
      return { rows: result.rows.map(({ type, at, data }) => ({ type, at, data })), total: Number(result.rows[0]!.total) };
    }
    // Past the end (or none at all): the count alone.
    const count = await sql<{ total: string }>`WITH history AS (${history}) SELECT count(*) AS total FROM history`.execute(this.db);
    return { rows: [], total: Number(count.rows[0]?.total ?? 0) };
  }

  private entries(subject: HistorySubject, now: Date): RawBuilder<unknown> {
    const { affiliateId: id, projectId, user } = subject;
    const branches: Array<RawBuilder<unknown>> = [
      sql`SELECT 'joined' AS type, a.joined_at AS at, 'a:' || a.id AS key,
            jsonb_build_object('name', a.name, 'region', a.region) AS data
          FROM affiliates a WHERE a.id = ${id}`,

      // Applications are the user's, not yet an affiliate's: matched by the user in the project.
      sql`SELECT 'application_submitted', p.created_at, 'p:' || p.id || ':0',
            jsonb_build_object('application_id', p.id, 'name', p.name, 'code', p.code)
          FROM applications p
          WHERE p.project_id = ${projectId} AND p.identifier_type = ${user.identifierType} AND p.identifier = ${user.identifier}`,
      sql`SELECT 'application_held', p.held_at, 'p:' || p.id || ':1',
            jsonb_build_object('application_id', p.id, 'note', p.hold_note, 'by_api_key_id', p.held_by)
          FROM applications p
          WHERE p.project_id = ${projectId} AND p.identifier_type = ${user.identifierType} AND p.identifier = ${user.identifier}
            AND p.held_at IS NOT NULL`,
      sql`SELECT 'application_' || p.status, p.decided_at, 'p:' || p.id || ':2',
            CASE WHEN p.status = 'approved'
              THEN jsonb_build_object('application_id', p.id, 'audience_id', p.audience_id, 'granted_code', p.granted_code, 'by_api_key_id', p.decided_by)
              ELSE jsonb_build_object('application_id', p.id, 'reason', p.rejection_reason, 'by_api_key_id', p.decided_by)
            END
          FROM applications p
          WHERE p.project_id = ${projectId} AND p.identifier_type = ${user.identifierType} AND p.identifier = ${user.identifier}
            AND p.decided_at IS NOT NULL`,

      sql`SELECT 'code_created', c.created_at, 'c:' || lpad(c.id::text, 19, '0'), jsonb_build_object('code', c.code)
          FROM affiliate_codes c WHERE c.affiliate_id = ${id}`,

      sql`SELECT 'suspended', s.suspended_at, 's:' || lpad(s.id::text, 19, '0') || ':0',
            jsonb_build_object('reason', s.reason, 'by_api_key_id', s.suspended_by)
          FROM affiliate_suspensions s WHERE s.affiliate_id = ${id}`,
      sql`SELECT 'reactivated', s.reactivated_at, 's:' || lpad(s.id::text, 19, '0') || ':1',
            jsonb_build_object('suspension_reason', s.reason, 'suspended_at', ${iso('s.suspended_at')}, 'by_api_key_id', s.reactivated_by)
          FROM affiliate_suspensions s WHERE s.affiliate_id = ${id} AND s.reactivated_at IS NOT NULL`,

      sql`SELECT 'flagged', f.flagged_at, 'f:' || lpad(f.id::text, 19, '0') || ':0',
            jsonb_build_object('reason', f.reason, 'by_api_key_id', f.flagged_by)
          FROM affiliate_flags f WHERE f.affiliate_id = ${id}`,
      // A suspension ends the flag at its own moment (AffiliateRepository.suspend).
      sql`SELECT 'unflagged', f.unflagged_at, 'f:' || lpad(f.id::text, 19, '0') || ':1',
            jsonb_build_object('flag_reason', f.reason, 'flagged_at', ${iso('f.flagged_at')}, 'by_api_key_id', f.unflagged_by,
              'suspended', EXISTS (SELECT 1 FROM affiliate_suspensions s WHERE s.affiliate_id = f.affiliate_id AND s.suspended_at = f.unflagged_at))
          FROM affiliate_flags f WHERE f.affiliate_id = ${id} AND f.unflagged_at IS NOT NULL`,

      sql`SELECT 'tier_protection_set', t.starts_at, 't:' || lpad(t.id::text, 19, '0') || ':0',
            jsonb_build_object('tier_id', t.tier_id, 'expires_at', ${iso('t.expires_at')}, 'by_api_key_id', t.set_by)
          FROM tier_protections t WHERE t.affiliate_id = ${id}`,
      // Ended before it expired: by an admin, or replaced by the next protection.
      sql`SELECT 'tier_protection_ended', t.ended_at, 't:' || lpad(t.id::text, 19, '0') || ':1',
            jsonb_build_object('tier_id', t.tier_id, 'by_api_key_id', t.ended_by,
              'replaced', EXISTS (SELECT 1 FROM tier_protections n WHERE n.affiliate_id = t.affiliate_id AND n.id > t.id AND n.starts_at = t.ended_at))
          FROM tier_protections t WHERE t.affiliate_id = ${id} AND t.ended_at IS NOT NULL AND t.ended_at < t.expires_at`,
      sql`SELECT 'tier_protection_expired', t.expires_at, 't:' || lpad(t.id::text, 19, '0') || ':1',
            jsonb_build_object('tier_id', t.tier_id)
          FROM tier_protections t
          WHERE t.affiliate_id = ${id} AND t.expires_at <= ${now} AND (t.ended_at IS NULL OR t.ended_at >= t.expires_at)`,

      // A sub-affiliate designated a master: the binding the designation closed names its former master.
      sql`SELECT 'master_designated', d.designated_at, 'd:' || lpad(d.id::text, 19, '0') || ':0',
            jsonb_build_object('by_api_key_id', d.designated_by,
              'spread_bps', (SELECT s.spread_bps FROM agency_spreads s WHERE s.designation_id = d.id ORDER BY s.id LIMIT 1),
              'unbound_from_master', (SELECT ${ref('m')} FROM sub_affiliate_bindings b JOIN affiliates m ON m.id = b.master_id
                                      WHERE b.ended_by_designation_id = d.id))
          FROM agency_designations d WHERE d.affiliate_id = ${id}`,
      sql`SELECT 'master_spread_changed', x.valid_from, 'd:' || lpad(x.designation_id::text, 19, '0') || ':1:' || lpad(x.id::text, 19, '0'),
            jsonb_build_object('spread_bps', x.spread_bps, 'previous_spread_bps', x.previous, 'by_api_key_id', x.set_by)
          FROM (
            SELECT s.*, lag(s.spread_bps) OVER (PARTITION BY s.designation_id ORDER BY s.id) AS previous
            FROM agency_spreads s WHERE s.master_id = ${id}
          ) x
          WHERE x.previous IS NOT NULL`,
      sql`SELECT 'master_removed', d.removed_at, 'd:' || lpad(d.id::text, 19, '0') || ':2',
            jsonb_build_object('by_api_key_id', d.removed_by)
          FROM agency_designations d WHERE d.affiliate_id = ${id} AND d.removed_at IS NOT NULL`,

      ...bindingEntries('sub_affiliate', id),
      // A master's own history names the sub-affiliates bound to it and unbound from it.
      ...bindingEntries('master', id),

      // Payouts by UTC day and currency, from the metrics projection's facts (attribution frozen per conversion).
      payoutsByDay('affiliate_payout', sql`f.affiliate_id = ${id} AND f.affiliate_payout > 0`),
      payoutsByDay('agency_payout', sql`f.master_id = ${id} AND f.agency_payout > 0`),
    ];
    return sql.join(branches, sql`\nUNION ALL\n`);
  }
}
