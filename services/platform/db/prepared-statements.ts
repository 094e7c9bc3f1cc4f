import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Hot statements sent as named prepared statements: PostgreSQL parses, analyses and plans such a
 * statement once per connection and then (after five custom plans, when the generic plan costs no
 * more) reuses the plan. For a statement that joins many tables, planning cost more than running it
 * (the affiliate list's page rows: ~1.5 ms of planning for ~1 ms of execution, seven times that
 * under load). A repository registers its SQL text once, at module load, and runs it as usual
 * through Kysely (`db.executeQuery(CompiledQuery.raw(text, parameters))`); the pool's clients
 * (PreparingClient, wired in openDatabase) recognise the text and send it by name.
 *
 * Only fixed texts qualify: a statement whose text varies per call would fill every connection
 * with statements used once. A repository that builds its text from a few shapes (a list's filters
 * and sort, values as parameters) registers each shape's text as it meets it (preparedShape), up
 * to MAX_SHAPES texts per process; past that, texts go unnamed as before.
 */
const NAMES = new Map<string, string>();
const TEXTS = new Map<string, string>();

/** The fixed texts (preparedStatement, not shapes), by name: what the SQL snapshots show for review. */
const FIXED = new Map<string, string>();

/** Registers `text` to be sent as the prepared statement `name` (unique per text); returns the text. */
export function preparedStatement(name: string, text: string): string {
  if (!isShapeName(name)) FIXED.set(name, text);
  const known = TEXTS.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement ${name} is already registered with another text`);
  TEXTS.set(name, text);
  NAMES.set(text, name);
  return text;
}

/** At most this many texts are registered by shape (preparedShape), so a connection keeps at most these many plans more. */
export const MAX_SHAPES = 256;
let shapes = 0;

/**
 * Registers `text`, one shape of a statement built per call, to be sent as a named prepared
 * statement (`prefix` and a hash of the text name it), unless MAX_SHAPES texts are registered
 * already; returns the text. Only for shapes whose generic plan is as good as each call's own:
 * after five calls PostgreSQL may plan once for any parameters, so a value that decides the plan
 * (a status a partial index is for, a LIKE prefix) must be in the text, not a parameter.
 */
export function preparedShape(prefix: string, text: string): string {
  if (NAMES.has(text) || shapes >= MAX_SHAPES) return text;
  shapes++;
  return preparedStatement(`${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, SHAPE_HASH_LENGTH)}`, text);
}

const SHAPE_HASH_LENGTH = 20;
const isShapeName = (name: string) => new RegExp(`_[0-9a-f]{${SHAPE_HASH_LENGTH}}$`).test(name);

/** Every fixed text registered so far (by the modules loaded), by name. */
export function fixedStatements(): ReadonlyMap<string, string> {
  return FIXED;
}

type Query = typeof pg.Client.prototype.query;
const plainQuery: Query = pg.Client.prototype.query;

/** A pg client that sends registered texts (preparedStatement) as named statements, everything else as before. */
export class PreparingClient extends pg.Client {}

PreparingClient.prototype.query = function query(this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
  const name = typeof config === 'string' && Array.isArray(values) ? NAMES.get(config) : undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's overloads, passed through as they came
  const call = plainQuery as (this: pg.Client, ...args: any[]) => unknown;
  if (name !== undefined) return call.call(this, { name, text: config, values }, callback);
  return call.call(this, config, values, callback);
} as Query;
