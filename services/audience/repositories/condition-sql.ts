import { type RawBuilder, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { type Condition, type ConditionLeaf, leavesOf, type Metric, type Op } from '../domain/condition';

/**
 * A condition compiled to SQL over the audience's condition inputs (migration 0004): the users it
 * matches in one project, as one set-based SELECT of (identifier_type, identifier). Every value
 * travels as a parameter; the only text put into the statement is the column and operator names
 * below, chosen from fixed maps by the parsed condition (never from input).
 *
 * Who is a user: whoever has any input row in the project (all-time metrics, a trait, earnings; and,
 * for a condition that counts events, tracking event counts).
 * A user without figures has 0 of each (so `lt` and `eq 0` match users without a metrics row); a
 * trait the user lacks is NULL, which no comparison matches (neq neither).
 */
export interface CompileOptions {
  projectId: string;
  /** Today (UTC), as YYYY-MM-DD: a window of N days starts N - 1 days before it. */
  today: string;
  /** Only these users (incremental matching); every user of the project when unset. */
  users?: readonly UserIdentifier[];
}

/** All-time figures (user_metrics), per metric that has one. */
const ALL_TIME_COLUMN: Partial<Record<Metric, string>> = {
  volume_usd: 'volume_usd',
  revenue_usd: 'revenue_usd',
  conversions: 'conversions',
  referred_users: 'referred_users',
  referred_volume_usd: 'referred_volume_usd',
};

/** Where per-day figures are, per metric: table and summed column. */
const DAY_SOURCE: Record<Metric, { table: string; column: string }> = {
  volume_usd: { table: 'user_conversion_days', column: 'volume_usd' },
  revenue_usd: { table: 'user_conversion_days', column: 'revenue_usd' },
  conversions: { table: 'user_conversion_days', column: 'conversions' },
  referred_users: { table: 'user_referral_days', column: 'referred_users' },
  referred_volume_usd: { table: 'user_referral_days', column: 'referred_volume_usd' },
  earnings: { table: 'user_earning_days', column: 'amount' },
  event_count: { table: 'user_event_days', column: 'count' },
};

const COMPARISON: Record<Exclude<Op, 'in'>, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=', neq: '<>' };

/** The SELECT of matching users: columns identifier_type, identifier; each user once. */
export function compileCondition(condition: Condition | null, options: CompileOptions): RawBuilder<{ identifier_type: string; identifier: string }> {
  if (condition === null) {
    // No condition (the segment turned static): nobody matches, so its dynamic entries go.
    return sql`SELECT NULL::text AS identifier_type, NULL::text AS identifier WHERE false`;
  }
  // A user known only by its tracking events is a user of the conditions that count events.
  const compiler = new Compiler(
    options,
    leavesOf(condition).some((leaf) => leaf.kind === 'metric' && leaf.metric === 'event_count'),
  );
  const predicate = compiler.predicate(condition);
  return sql`
    SELECT u.identifier_type, u.identifier
    FROM (${compiler.universe()}) u
    ${sql.join(compiler.joins, sql` `)}
    WHERE ${predicate}`;
}

/** `AND (alias.identifier_type, alias.identifier) IN (the users)` when restricted to some users. */
export function usersFilter(alias: string, users: readonly UserIdentifier[] | undefined): RawBuilder<unknown> {
  if (!users) return sql``;
  return sql`AND (${sql.ref(`${alias}.identifier_type`)}, ${sql.ref(`${alias}.identifier`)}) IN (
    SELECT s.identifier_type, s.identifier
    FROM unnest(${users.map((user) => user.identifierType)}::text[], ${users.map((user) => user.identifier)}::text[]) AS s(identifier_type, identifier))`;
}

class Compiler {
  readonly joins: RawBuilder<unknown>[] = [];
  /** One join per distinct source, so a trait or a window read twice is joined once. */
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly options: CompileOptions,
    private readonly countsEvents: boolean,
  ) {}

  universe(): RawBuilder<unknown> {
    const { projectId, users } = this.options;
    const arm = (table: string) =>
      sql`SELECT x.identifier_type, x.identifier FROM ${sql.table(table)} x WHERE x.project_id = ${projectId} ${usersFilter('x', users)}`;
    const events = this.countsEvents ? sql` UNION ${arm('user_event_days')}` : sql``;
    return sql`${arm('user_metrics')} UNION ${arm('user_traits')} UNION ${arm('user_earning_days')}${events}`;
  }

  predicate(node: Condition): RawBuilder<boolean> {
    if ('children' in node) {
      const parts = node.children.map((child) => sql`(${this.predicate(child)})`);
      return sql<boolean>`${sql.join(parts, node.kind === 'all' ? sql` AND ` : sql` OR `)}`;
    }
    return node.kind === 'trait' ? this.traitPredicate(node) : this.metricPredicate(node);
  }

  private metricPredicate(leaf: Extract<ConditionLeaf, { kind: 'metric' }>): RawBuilder<boolean> {
    const figure = sql`COALESCE(${this.metricSource(leaf)}, 0)`;
    if (leaf.op === 'in') return sql`${figure} = ANY(${leaf.values}::numeric[])`;
    return sql`${figure} ${sql.raw(COMPARISON[leaf.op])} ${leaf.values[0]}::numeric`;
  }

  /** The column holding the user's figure (NULL for a user without one). */
  private metricSource(leaf: Extract<ConditionLeaf, { kind: 'metric' }>): RawBuilder<unknown> {
    const { projectId, users } = this.options;
    const allTime = ALL_TIME_COLUMN[leaf.metric];
    if (allTime && leaf.windowDays === null && leaf.conversionName === null) {
      const alias = this.join(
        'm',
        () => sql`LEFT JOIN user_metrics m ON m.project_id = ${projectId} AND m.identifier_type = u.identifier_type AND m.identifier = u.identifier`,
      );
      return sql.ref(`${alias}.${allTime}`);
    }
    const source = DAY_SOURCE[leaf.metric];
    const since = leaf.windowDays === null ? null : sinceDay(this.options.today, leaf.windowDays);
    const key = JSON.stringify(['days', source.table, source.column, since, leaf.conversionName, leaf.currencyId, leaf.eventName]);
    const alias = this.join(key, (name) => {
      const filters = [
        since === null ? sql`` : sql`AND d.day >= ${since}::date`,
        leaf.conversionName === null ? sql`` : sql`AND d.name = ${leaf.conversionName}`,
        leaf.currencyId === null ? sql`` : sql`AND d.currency_id = ${leaf.currencyId}::uuid`,
        leaf.eventName === null ? sql`` : sql`AND d.name = ${leaf.eventName}`,
      ];
      return sql`LEFT JOIN (
        SELECT d.identifier_type, d.identifier, sum(${sql.ref(`d.${source.column}`)}) AS figure
        FROM ${sql.table(source.table)} d
        WHERE d.project_id = ${projectId} ${sql.join(filters, sql` `)} ${usersFilter('d', users)}
        GROUP BY d.identifier_type, d.identifier
      ) ${sql.ref(name)} ON ${sql.ref(`${name}.identifier_type`)} = u.identifier_type AND ${sql.ref(`${name}.identifier`)} = u.identifier`;
    });
    return sql.ref(`${alias}.figure`);
  }

  private traitPredicate(leaf: Extract<ConditionLeaf, { kind: 'trait' }>): RawBuilder<boolean> {
    const alias = this.join(
      JSON.stringify(['trait', leaf.name]),
      (name) =>
        sql`LEFT JOIN user_traits ${sql.ref(name)} ON ${sql.ref(`${name}.project_id`)} = ${this.options.projectId}
        AND ${sql.ref(`${name}.name`)} = ${leaf.name}
        AND ${sql.ref(`${name}.identifier_type`)} = u.identifier_type AND ${sql.ref(`${name}.identifier`)} = u.identifier`,
    );
    const value = sql.ref(`${alias}.value`);
    if (leaf.op === 'in') return sql`${value} = ANY(${leaf.values.map((item) => JSON.stringify(item))}::jsonb[])`;
    if (leaf.op === 'eq' || leaf.op === 'neq') return sql`${value} ${sql.raw(COMPARISON[leaf.op])} ${JSON.stringify(leaf.values[0])}::jsonb`;
    // Ordering compares numbers only; CASE keeps a string trait from reaching the cast.
    return sql`(CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value})::numeric END) ${sql.raw(COMPARISON[leaf.op])} ${String(leaf.values[0])}::numeric`;
  }

  private join(key: string, build: (alias: string) => RawBuilder<unknown>): string {
    const known = this.aliases.get(key);
    if (known) return known;
    const alias = key === 'm' ? 'm' : `j${this.aliases.size}`;
    this.aliases.set(key, alias);
    this.joins.push(build(alias));
    return alias;
  }
}

/** The first day of a window of `days` days ending today (UTC). */
function sinceDay(today: string, days: number): string {
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - (days - 1));
  return date.toISOString().slice(0, 10);
}
