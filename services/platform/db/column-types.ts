/** Column types the services' Kysely schemas (services/<service>/database.ts) share. */

/** A `timestamptz` column, as pg reads it (services/platform/db/type-parsers.ts). */
export type Timestamp = Date;

/** A column that may be NULL. */
export type Nullable<T> = T | null;
