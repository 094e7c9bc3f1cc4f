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
 * with statements used once.
 */
const NAMES = new Map<string, string>();
const TEXTS = new Map<string, string>();

/** Registers `text` to be sent as the prepared statement `name` (unique per text); returns the text. */
export function preparedStatement(name: string, text: string): string {
  const known = TEXTS.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement ${name} is already registered with another text`);
  TEXTS.set(name, text);
  NAMES.set(text, name);
  return text;
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
