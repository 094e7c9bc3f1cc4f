import type { Kysely, Transaction } from 'kysely';
import type { AccessDatabase } from './access.database';

export interface ProjectRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export class ProjectRepository {
  constructor(private readonly db: Kysely<AccessDatabase>) {}

  async insert(name: string, now: Date, trx: Transaction<AccessDatabase>): Promise<ProjectRecord> {
    const row = await trx.insertInto('projects').values({ name, created_at: now }).returningAll().executeTakeFirstOrThrow();
    return { id: row.id, name: row.name, createdAt: row.created_at };
  }

  async exists(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  async find(id: string): Promise<ProjectRecord | undefined> {
    const row = await this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  async createdAt(id: string): Promise<Date | undefined> {
    const row = await this.db.selectFrom('projects').select('created_at').where('id', '=', id).executeTakeFirst();
    return row?.created_at;
  }

  transaction<T>(work: (trx: Transaction<AccessDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }
}
