import type { FieldViolation } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import { traitNameProblem } from './trait-fields';

/**
 * The condition language of dynamic segments: groups `{ "all": [...] }` and
 * `{ "any": [...] }`, nested, whose leaves compare one figure of a user with a value:
 * `{ "metric", "op", "value", "window_days"?, "conversion_name"?, "currency_id"?, "event_name"? }`. A bare leaf is
 * a condition too. Parsed once here, for every caller (gRPC, the worker), into the tree below.
 */
export type Condition = ConditionGroup | ConditionLeaf;

export interface ConditionGroup {
  kind: 'all' | 'any';
  children: Condition[];
}

export const METRICS = ['volume_usd', 'revenue_usd', 'conversions', 'referred_users', 'referred_volume_usd', 'earnings', 'event_count'] as const;
export type Metric = (typeof METRICS)[number];
export const OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq', 'in'] as const;
export type Op = (typeof OPS)[number];

/** A trait's value, as projects push them. */
export type TraitValue = number | string | boolean;

export type ConditionLeaf =
  | {
      kind: 'metric';
      metric: Metric;
      op: Op;
      /** Decimal strings, exact: compared as NUMERIC. One for every op but `in`. */
      values: string[];
      windowDays: number | null;
      conversionName: string | null;
      currencyId: string | null;
      /** The tracking event counted by `event_count` (required with it, refused with any other metric). */
      eventName: string | null;
    }
  | { kind: 'trait'; name: string; op: Op; values: TraitValue[] };

export const CONDITION_LIMITS = {
  /** Groups within groups: `{ "all": [ { "any": [ leaf ] } ] }` is 2. */
  maxGroupDepth: 5,
  maxLeaves: 50,
  maxGroupChildren: 50,
  maxInValues: 100,
  maxWindowDays: 3_650,
  maxNameLength: 100,
  /** Digits of a decimal figure, either side of the point (NUMERIC(78,0) holds 78). */
  maxDigits: 78,
};

const TRAIT_PREFIX = 'trait:';
const LEAF_FIELDS = new Set(['metric', 'op', 'value', 'window_days', 'conversion_name', 'currency_id', 'event_name']);
/** Metrics that count (whole numbers) or sum integer base units; the others are USD decimals. */
const WHOLE_METRICS = new Set<Metric>(['conversions', 'referred_users', 'earnings', 'event_count']);
/** Metrics the per-day conversion rows hold, per conversion name. */
const NAMED_METRICS = new Set<Metric>(['volume_usd', 'revenue_usd', 'conversions']);
const DECIMAL = /^-?\d+(\.\d+)?$/;
const ORDERING_OPS = new Set<Op>(['gt', 'gte', 'lt', 'lte']);

export type ParsedCondition = { condition: Condition; violations: [] } | { condition: undefined; violations: FieldViolation[] };

/** Checks a parsed JSON value as a condition, naming the path of every problem (`condition.all[2].op`). */
export function parseCondition(value: unknown, root = 'condition'): ParsedCondition {
  const violations: FieldViolation[] = [];
  const state = { leaves: 0 };
  const condition = parseNode(value, root, 1, state, violations);
  if (state.leaves > CONDITION_LIMITS.maxLeaves) {
    violations.push({ field: root, reason: `holds ${state.leaves} comparisons; at most ${CONDITION_LIMITS.maxLeaves} are allowed` });
  }
  if (violations.length > 0 || !condition) return { condition: undefined, violations };
  return { condition, violations: [] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parseNode(value: unknown, path: string, depth: number, state: { leaves: number }, violations: FieldViolation[]): Condition | undefined {
  if (!isObject(value)) {
    violations.push({ field: path, reason: 'must be an object: { "all": [...] }, { "any": [...] } or a comparison { "metric", "op", "value" }' });
    return undefined;
  }
  const groupKey = 'all' in value ? 'all' : 'any' in value ? 'any' : undefined;
  if (groupKey) return parseGroup(value, groupKey, path, depth, state, violations);
  state.leaves += 1;
  return parseLeaf(value, path, violations);
}

function parseGroup(
  value: Record<string, unknown>,
  kind: 'all' | 'any',
  path: string,
  depth: number,
  state: { leaves: number },
  violations: FieldViolation[],
): Condition | undefined {
  const extra = Object.keys(value).filter((key) => key !== kind);
  if (extra.length > 0) {
    for (const key of extra) violations.push({ field: `${path}.${key}`, reason: `is not allowed beside "${kind}" (a group holds only its list)` });
    return undefined;
  }
  const list = value[kind];
  const at = `${path}.${kind}`;
  if (!Array.isArray(list) || list.length === 0) {
    violations.push({ field: at, reason: 'must be a non-empty array of conditions' });
    return undefined;
  }
  if (depth > CONDITION_LIMITS.maxGroupDepth) {
    violations.push({ field: at, reason: `nests groups more than ${CONDITION_LIMITS.maxGroupDepth} levels deep` });
    return undefined;
  }
  if (list.length > CONDITION_LIMITS.maxGroupChildren) {
    violations.push({ field: at, reason: `holds ${list.length} conditions; at most ${CONDITION_LIMITS.maxGroupChildren} are allowed` });
    return undefined;
  }
  const children = list.map((child, index) => parseNode(child, `${at}[${index}]`, depth + 1, state, violations));
  if (children.some((child) => child === undefined)) return undefined;
  return { kind, children: children as Condition[] };
}

function parseLeaf(value: Record<string, unknown>, path: string, violations: FieldViolation[]): ConditionLeaf | undefined {
  const before = violations.length;
  for (const key of Object.keys(value)) {
    if (!LEAF_FIELDS.has(key))
      violations.push({ field: `${path}.${key}`, reason: `is not a field of a comparison (${[...LEAF_FIELDS].join(', ')}; or a group: all, any)` });
  }
  const op = value.op;
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    violations.push({ field: `${path}.op`, reason: `must be one of ${OPS.join(', ')}` });
  }
  const metric = value.metric;
  if (typeof metric === 'string' && metric.startsWith(TRAIT_PREFIX)) {
    const leaf = parseTraitLeaf(value, metric.slice(TRAIT_PREFIX.length), op as Op, path, violations);
    return violations.length === before ? leaf : undefined;
  }
  if (typeof metric !== 'string' || !(METRICS as readonly string[]).includes(metric)) {
    violations.push({ field: `${path}.metric`, reason: `must be one of ${METRICS.join(', ')}, or trait:<name>` });
    return undefined;
  }
  const leaf = parseMetricLeaf(value, metric as Metric, op as Op, path, violations);
  return violations.length === before ? leaf : undefined;
}

function parseMetricLeaf(value: Record<string, unknown>, metric: Metric, op: Op, path: string, violations: FieldViolation[]): ConditionLeaf {
  const whole = WHOLE_METRICS.has(metric);
  const values = parseValues(value.value, op, `${path}.value`, violations, (item, at) => decimalOf(item, whole, at, violations));

  let windowDays: number | null = null;
  if (value.window_days !== undefined) {
    const days = value.window_days;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > CONDITION_LIMITS.maxWindowDays) {
      violations.push({ field: `${path}.window_days`, reason: `must be a whole number of days from 1 to ${CONDITION_LIMITS.maxWindowDays}` });
    } else {
      windowDays = days;
    }
  }
  let conversionName: string | null = null;
  if (value.conversion_name !== undefined) {
    if (!NAMED_METRICS.has(metric)) {
      violations.push({ field: `${path}.conversion_name`, reason: `is allowed only with ${[...NAMED_METRICS].join(', ')}` });
    } else if (!isName(value.conversion_name)) {
      violations.push({ field: `${path}.conversion_name`, reason: `must be a string of 1 to ${CONDITION_LIMITS.maxNameLength} characters` });
    } else {
      conversionName = value.conversion_name;
    }
  }
  let currencyId: string | null = null;
  if (metric === 'earnings') {
    if (typeof value.currency_id !== 'string' || !isUuid(value.currency_id)) {
      violations.push({ field: `${path}.currency_id`, reason: 'is required with earnings: the id (uuid) of the currency the amounts are in' });
    } else {
      currencyId = value.currency_id.toLowerCase();
    }
  } else if (value.currency_id !== undefined) {
    violations.push({ field: `${path}.currency_id`, reason: 'is allowed only with earnings' });
  }
  let eventName: string | null = null;
  if (metric === 'event_count') {
    if (!isName(value.event_name)) {
      violations.push({
        field: `${path}.event_name`,
        reason: `is required with event_count: the name of the tracking event counted, 1 to ${CONDITION_LIMITS.maxNameLength} characters`,
      });
    } else {
      eventName = value.event_name;
    }
  } else if (value.event_name !== undefined) {
    violations.push({ field: `${path}.event_name`, reason: 'is allowed only with event_count' });
  }
  return { kind: 'metric', metric, op, values, windowDays, conversionName, currencyId, eventName };
}

function parseTraitLeaf(value: Record<string, unknown>, name: string, op: Op, path: string, violations: FieldViolation[]): ConditionLeaf {
  // The rule traits are stored under: a condition on a name no trait can have would match nobody, silently.
  const problem = traitNameProblem(name);
  if (problem) violations.push({ field: `${path}.metric`, reason: `must name a trait as trait:<name>, where the name ${problem}` });
  for (const key of ['window_days', 'conversion_name', 'currency_id', 'event_name']) {
    if (value[key] !== undefined) violations.push({ field: `${path}.${key}`, reason: 'is not allowed with a trait' });
  }
  const values = parseValues(value.value, op, `${path}.value`, violations, (item, at) => {
    if (ORDERING_OPS.has(op)) {
      if (typeof item === 'number') return item;
      violations.push({ field: at, reason: `must be a number: ${op} compares numbers` });
      return undefined;
    }
    if (typeof item === 'number' || typeof item === 'boolean' || (typeof item === 'string' && item.length <= 1_000)) return item;
    violations.push({ field: at, reason: 'must be a number, a string (at most 1,000 characters) or a boolean' });
    return undefined;
  });
  return { kind: 'trait', name, op, values };
}

/** The one value of a comparison, or the list of `in`. */
function parseValues<T>(raw: unknown, op: Op, at: string, violations: FieldViolation[], one: (item: unknown, at: string) => T | undefined): T[] {
  if (raw === undefined) {
    violations.push({ field: at, reason: 'is required' });
    return [];
  }
  if (op === 'in') {
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > CONDITION_LIMITS.maxInValues) {
      violations.push({ field: at, reason: `must be an array of 1 to ${CONDITION_LIMITS.maxInValues} values with "in"` });
      return [];
    }
    return raw.map((item, index) => one(item, `${at}[${index}]`)).filter((item): item is T => item !== undefined);
  }
  if (Array.isArray(raw)) {
    violations.push({ field: at, reason: 'must be one value (a list is for "in")' });
    return [];
  }
  const single = one(raw, at);
  return single === undefined ? [] : [single];
}

/** A figure as an exact decimal string: a decimal string, or a JSON number that is exactly what it says. */
function decimalOf(item: unknown, whole: boolean, at: string, violations: FieldViolation[]): string | undefined {
  const kind = whole ? 'a whole number' : 'a decimal number';
  let text: string | undefined;
  if (typeof item === 'string' && DECIMAL.test(item)) text = item;
  else if (typeof item === 'number' && Number.isFinite(item) && (!whole || Number.isSafeInteger(item)) && !/e/i.test(String(item)))
    text = String(item);
  const [integer = '', fraction = ''] = (text ?? '').replace('-', '').split('.');
  if (text === undefined || integer.length > CONDITION_LIMITS.maxDigits || fraction.length > CONDITION_LIMITS.maxDigits) {
    violations.push({
      field: at,
      reason: `must be ${kind}, as a JSON number or a decimal string such as "100.5" (exact; at most ${CONDITION_LIMITS.maxDigits} digits)`,
    });
    return undefined;
  }
  if (whole && fraction.length > 0) {
    violations.push({ field: at, reason: `must be ${kind} (counts and base units have no fraction)` });
    return undefined;
  }
  return text;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= CONDITION_LIMITS.maxNameLength;
}

/** Every leaf of a condition, depth first. */
export function leavesOf(condition: Condition): ConditionLeaf[] {
  return 'children' in condition ? condition.children.flatMap(leavesOf) : [condition];
}
