import type { Kysely } from 'kysely';
import type { ClaimDatabase } from '../database';

export interface ClaimSettingsRecord {
  projectAddress: string;
  updatedAt: Date;
}

/** A project's claim settings: one row per project. */
export class ClaimSettingsRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async get(projectId: string): Promise<ClaimSettingsRecord | undefined> {
    const row = await this.db
      .selectFrom('claim_settings')
      .select(['project_address', 'updated_at'])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return row && { projectAddress: row.project_address, updatedAt: row.updated_at };
  }

  async put(projectId: string, projectAddress: string, now: Date): Promise<ClaimSettingsRecord> {
    const row = await this.db
      .insertInto('claim_settings')
      .values({ project_id: projectId, project_address: projectAddress, created_at: now, updated_at: now })
      .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ project_address: projectAddress, updated_at: now }))
      .returning(['project_address', 'updated_at'])
      .executeTakeFirstOrThrow();
    return { projectAddress: row.project_address, updatedAt: row.updated_at };
  }
}
