import { type Kysely, sql, type Transaction } from 'kysely';
import type { Page } from '../../services/rules/pagination';
import type { AccessDatabase, ApiKeyRole } from './access.database';

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  role: ApiKeyRole;
  name: string;
  keyPrefix: string;
  createdAt: Date;
}

export interface NewApiKey {
  projectId: string;
  role: ApiKeyRole;
  name: string;
  hash: Buffer;
  prefix: string;
  now: Date;
}

const COLUMNS = ['id', 'project_id', 'role', 'name', 'key_prefix', 'created_at'] as const;

export class ApiKeyRepository {
  constructor(private readonly db: Kysely<AccessDatabase>) {}

  async insert(key: NewApiKey, trx: Kysely<AccessDatabase> = this.db): Promise<ApiKeyRecord> {
    const row = await trx
      .insertInto('api_keys')
      .values({
        project_id: key.projectId,
        role: key.role,
        name: key.name,
        key_hash: key.hash,
        key_prefix: key.prefix,
        created_at: key.now,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  /** The active key with this hash; revoked keys are not found. */
  async findActiveByHash(hash: Buffer): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_keys').select(COLUMNS).where('key_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
    return row && toRecord(row);
  }

  async findActive(projectId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async listActive(projectId: string, page: Page): Promise<{ records: ApiKeyRecord[]; total: number }> {
    const base = this.db.selectFrom('api_keys').where('project_id', '=', projectId).where('revoked_at', 'is', null);
    const [rows, count] = await Promise.all([
      base.select(COLUMNS).orderBy('created_at').orderBy('id').limit(page.pageSize).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toRecord), total: Number(count.total) };
  }

  /**
   * Revokes a key unless it is the project's last active admin key (which would lock the
   * project out of its own administration). The project's key rows are locked so two
   * concurrent revocations cannot both pass that check.
   */
  async revoke(projectId: string, keyId: string, now: Date): Promise<'revoked' | 'not_found' | 'last_admin'> {
    return this.db.transaction().execute(async (trx: Transaction<AccessDatabase>) => {
      const keys = await trx
        .selectFrom('api_keys')
        .select(['id', 'role'])
        .where('project_id', '=', projectId)
        .where('revoked_at', 'is', null)
        .forUpdate()
        .execute();
      const target = keys.find((key) => key.id === keyId);
      if (!target) return 'not_found';
      if (target.role === 'admin' && keys.filter((key) => key.role === 'admin').length === 1) return 'last_admin';
      await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyId).execute();
      return 'revoked';
    });
  }

  /** Touches nothing but proves the database answers (readiness). */
  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }
}

function toRecord(row: { id: string; project_id: string; role: ApiKeyRole; name: string; key_prefix: string; created_at: Date }): ApiKeyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    role: row.role,
    name: row.name,
    keyPrefix: row.key_prefix,
    createdAt: row.created_at,
  };
}
