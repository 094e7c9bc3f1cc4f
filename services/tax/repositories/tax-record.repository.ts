import { CompiledQuery, type ExpressionBuilder, type Kysely } from 'kysely';
import { preparedStatement } from '../../platform/db/prepared-statements';
import { userLists } from '../../platform/db/user-lists';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { TaxDatabase } from '../database';
import type { TaxRecord } from '../domain/tax-record';
import type { StatusBearing } from '../domain/tax-status';
import type { FormType, RecordStatus } from '../domain/vocabulary';
import { currentRecordOf, isCurrent, RECORD_COLUMNS, toTaxRecord } from './tax-record-row';
import { defaultSettings } from './tax-settings.repository';

/**
 * The batch status read (the affiliate list's page, the claim gate) in ONE statement: the project's
 * require_tax_info (an InitPlan, read once; NULL without a settings row) beside each requested user's
 * current record, one row per user in the order asked (duplicates answered each time). Each user is
 * one probe of tax_records_one_current (LATERAL ... LIMIT 1, whatever the statistics say). Only the
 * columns a status shows are read: nothing sealed or personal, so nothing is decrypted or parsed
 * for it. As in the agency's attribution statement, the users travel as two comma-separated lists
 * ($2 identifier types, $3 identifiers: services/platform/db/user-lists.ts) and the
 * timestamps come back as unix milliseconds: pg's array escaping and timestamp parsing cost more
 * than the statement itself. Prepared by name (services/platform/db/prepared-statements.ts): planning
 * the LATERAL join took ~0.7 ms a call, four times its execution.
 */
const CURRENT_STATUSES_SQL = preparedStatement(
  'tax_current_statuses',
  `SELECT (SELECT s.require_tax_info FROM tax_settings s WHERE s.project_id = $1) AS require_tax_info,
       r.status, r.form_type,
       floor(extract(epoch FROM r.submitted_at) * 1000)::float8 AS submitted_at_ms,
       floor(extract(epoch FROM r.approved_at) * 1000)::float8 AS approved_at_ms,
       floor(extract(epoch FROM r.expires_at) * 1000)::float8 AS expires_at_ms,
       r.revoked_reason
FROM unnest(string_to_array($2, ','), string_to_array($3, ',')) WITH ORDINALITY AS u(identifier_type, identifier, ord)
LEFT JOIN LATERAL (
  SELECT r.status, r.form_type, r.submitted_at, r.approved_at, r.expires_at, r.revoked_reason FROM tax_records r
  WHERE r.project_id = $1 AND r.identifier_type = u.identifier_type AND r.identifier = u.identifier
    AND r.superseded_at IS NULL AND r.quarantined_at IS NULL
  LIMIT 1
) r ON true
ORDER BY u.ord`,
);

interface CurrentStatusRow {
  require_tax_info: boolean | null;
  status: RecordStatus | null;
  form_type: FormType | null;
  submitted_at_ms: number | null;
  approved_at_ms: number | null;
  expires_at_ms: number | null;
  revoked_reason: string | null;
}

const dateOf = (ms: number | null) => (ms === null ? null : new Date(ms));

/** Reads of tax records; their changes are in tax-transition.repository.ts. */
export class TaxRecordRepository {
  constructor(private readonly db: Kysely<TaxDatabase>) {}

  async findCurrent(projectId: string, user: UserIdentifier): Promise<TaxRecord | undefined> {
    const row = await this.db.selectFrom('tax_records').select(RECORD_COLUMNS).where(currentRecordOf(projectId, user)).executeTakeFirst();
    return row && toTaxRecord(row);
  }

  /**
   * Whether the project requires tax info, and each user's current record as far as its status
   * goes (undefined: none), in the order of `users` (at least one): one round trip (CURRENT_STATUSES_SQL).
   */
  async currentStatusesOf(
    projectId: string,
    users: readonly UserIdentifier[],
  ): Promise<{ requireTaxInfo: boolean; records: Array<StatusBearing | undefined> }> {
    // The settings come back beside the users' rows: without a user there is no row to carry them.
    if (users.length === 0) throw new Error('currentStatusesOf needs at least one user');
    const { types, identifiers } = userLists(users);
    const { rows } = await this.db.executeQuery<CurrentStatusRow>(CompiledQuery.raw(CURRENT_STATUSES_SQL, [projectId, types, identifiers]));
    if (rows.length !== users.length) throw new Error(`the tax status statement answered ${rows.length} rows for ${users.length} users`);
    return {
      requireTaxInfo: rows[0]!.require_tax_info ?? defaultSettings(projectId).requireTaxInfo,
      records: rows.map((row) =>
        row.status === null || row.form_type === null || row.submitted_at_ms === null
          ? undefined
          : {
              status: row.status,
              formType: row.form_type,
              submittedAt: new Date(row.submitted_at_ms),
              approvedAt: dateOf(row.approved_at_ms),
              expiresAt: dateOf(row.expires_at_ms),
              revokedReason: row.revoked_reason,
            },
      ),
    };
  }

  /**
   * Current records of a project, oldest submission first (the review queue), optionally of one
   * status as of `now`: an approved W-8 past expires_at counts as expired before the sweep.
   */
  async list(
    projectId: string,
    { status, user }: { status?: RecordStatus | undefined; user?: UserIdentifier | undefined },
    page: Page,
    now: Date,
  ): Promise<{ records: TaxRecord[]; total: number }> {
    let matching = this.db
      .selectFrom('tax_records')
      .where('project_id', '=', projectId)
      .where(isCurrent)
      .where((eb) => statusAt(eb, status, now));
    if (user) matching = matching.where('identifier_type', '=', user.identifierType).where('identifier', '=', user.identifier);
    const [rows, count] = await Promise.all([
      matching.select(RECORD_COLUMNS).orderBy('submitted_at').orderBy('id').limit(page.pageSize).offset(page.offset).execute(),
      matching.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toTaxRecord), total: Number(count.total) };
  }
}

function statusAt(eb: ExpressionBuilder<TaxDatabase, 'tax_records'>, status: RecordStatus | undefined, now: Date) {
  switch (status) {
    case undefined:
      return eb.lit(true);
    case 'approved':
      return eb.and([eb('status', '=', 'approved'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);
    case 'expired':
      return eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'approved'), eb('expires_at', '<=', now)])]);
    default:
      return eb('status', '=', status);
  }
}
