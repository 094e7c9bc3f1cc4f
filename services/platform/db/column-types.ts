/** Column types the services' Kysely schemas (services/<service>/database.ts) share. */
import type { ColumnType } from 'kysely';

/** A `timestamptz` column, as pg reads it (services/platform/db/type-parsers.ts). */
export type Timestamp = Date;

/** A column that may be NULL. */
export type Nullable<T> = T | null;

/** A column that may be NULL and that an insert may leave out (it is then NULL, or the column's default). */
export type OptionalNullable<T> = ColumnType<T | null, T | null | undefined, T | null>;
