import { type Kysely, sql } from 'kysely';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AudienceDatabase } from '../database';
import type { TraitValue } from '../domain/trait-fields';
import { recordPendingMatches } from './pending-matches.repository';

/** A write to apply: one per (user, name) in a call. */
export interface TraitWrite {
  user: UserIdentifier;
  name: string;
  /** The value as JSON text (traitValueJson). */
  valueJson: string;
  updatedAt: Date;
}

export interface UserTraitRecord {
  name: string;
  value: TraitValue;
  updatedAt: Date;
}

const keyOrder = (a: TraitWrite, b: TraitWrite) =>
  a.user.identifierType < b.user.identifierType
    ? -1
    : a.user.identifierType > b.user.identifierType
      ? 1
      : a.user.identifier < b.user.identifier
        ? -1
        : a.user.identifier > b.user.identifier
          ? 1
          : a.name < b.name
            ? -1
            : a.name > b.name
              ? 1
              : 0;

export class TraitRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Applies the writes with ONE statement: a write lands where the stored one is not newer (an equal
   * updated_at lands too, so a resent write is harmless); an older one changes nothing. Rows are
   * written in key order, so two batches over the same users lock them in one order and never
   * deadlock. The users of the writes that landed are recorded for re-matching (pending_matches) in
   * the same transaction, as changed at `changedAt`, and answered. The writes must be distinct per (user, name).
   */
  async upsert(projectId: string, writes: readonly TraitWrite[], changedAt: Date): Promise<UserIdentifier[]> {
    if (writes.length === 0) return [];
    const sorted = [...writes].sort(keyOrder);
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ identifier_type: IdentifierType; identifier: string }>`
        INSERT INTO user_traits (project_id, identifier_type, identifier, name, value, updated_at)
        SELECT ${projectId}::uuid, t.identifier_type, t.identifier, t.name, t.value::jsonb, t.updated_at
        FROM unnest(
          ${sorted.map((w) => w.user.identifierType)}::text[], ${sorted.map((w) => w.user.identifier)}::text[],
          ${sorted.map((w) => w.name)}::text[], ${sorted.map((w) => w.valueJson)}::text[], ${sorted.map((w) => w.updatedAt.toISOString())}::timestamptz[]
        ) WITH ORDINALITY AS t(identifier_type, identifier, name, value, updated_at, n)
        ORDER BY t.n
        ON CONFLICT (project_id, identifier_type, identifier, name) DO UPDATE
          SET value = excluded.value, updated_at = excluded.updated_at
          WHERE excluded.updated_at >= user_traits.updated_at
        RETURNING identifier_type, identifier`.execute(trx);
      const written = rows.map((row) => ({ identifier: row.identifier, identifierType: row.identifier_type }));
      await recordPendingMatches(trx, projectId, written, changedAt);
      return written;
    });
  }

  /** One user's traits by name, a page of them, and how many it has. */
  async list(projectId: string, user: UserIdentifier, page: Page): Promise<{ records: UserTraitRecord[]; total: number }> {
    const mine = this.db
      .selectFrom('user_traits')
      .where('project_id', '=', projectId)
      .where('identifier_type', '=', user.identifierType)
      .where('identifier', '=', user.identifier);
    const [rows, counted] = await Promise.all([
      mine
        .select([
          'name',
          'updated_at',
          sql<'number' | 'string' | 'boolean'>`jsonb_typeof(value)`.as('type'),
          // A string unquoted, a number in its exact decimal text, a boolean as true/false.
          sql<string>`value #>> '{}'`.as('text'),
        ])
        .orderBy('name')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      mine.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return {
      records: rows.map((row) => ({ name: row.name, value: valueOf(row.type, row.text), updatedAt: row.updated_at })),
      total: Number(counted.total),
    };
  }
}

function valueOf(type: 'number' | 'string' | 'boolean', text: string): TraitValue {
  switch (type) {
    case 'number':
      return { kind: 'number', text };
    case 'boolean':
      return { kind: 'boolean', value: text === 'true' };
    default:
      return { kind: 'string', text };
  }
}
