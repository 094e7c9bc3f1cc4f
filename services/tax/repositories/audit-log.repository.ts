import type { Kysely } from 'kysely';
import type { Page } from '../../rules/pagination';
import type { UserIdentifier } from '../../rules/identifiers';
import type { TaxAuditLogRow, TaxDatabase } from '../database';

export interface AuditEntryRecord {
  id: string;
  action: string;
  actorApiKeyId: string;
  user: UserIdentifier;
  taxRecordId: string | null;
  requestId: string | null;
  occurredAt: Date;
}

export interface NewAuditEntry {
  projectId: string;
  action: string;
  actorApiKeyId: string;
  user: UserIdentifier;
  taxRecordId: string | null;
  requestId: string | null;
  now: Date;
}

/** Who read what, and when; never the value read. Rows are only ever added. */
export class AuditLogRepository {
  constructor(private readonly db: Kysely<TaxDatabase>) {}

  async insert(entry: NewAuditEntry): Promise<void> {
    await this.db
      .insertInto('tax_audit_log')
      .values({
        project_id: entry.projectId,
        action: entry.action,
        actor_type: 'api_key',
        actor_id: entry.actorApiKeyId,
        identifier_type: entry.user.identifierType,
        identifier: entry.user.identifier,
        record_id: entry.taxRecordId,
        request_id: entry.requestId,
        occurred_at: entry.now,
      })
      .execute();
  }

  /** Newest first. */
  async list(projectId: string, page: Page): Promise<{ records: AuditEntryRecord[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('tax_audit_log')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom('tax_audit_log')
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toRecord), total: Number(count.total) };
  }
}

function toRecord(row: TaxAuditLogRow): AuditEntryRecord {
  return {
    id: row.id,
    action: row.action,
    actorApiKeyId: row.actor_id,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    taxRecordId: row.record_id,
    requestId: row.request_id,
    occurredAt: row.occurred_at,
  };
}
