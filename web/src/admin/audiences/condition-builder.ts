import { METRICS, OPS, TRAIT } from './condition-schema';

/**
 * The visual condition builder's model: a tree of groups and comparisons whose fields are the text
 * the admin typed, turned into the API's JSON on every change (and back, when the JSON is one the
 * builder can show). The builder checks nothing itself: the API's 400 names each problem by path
 * (condition.all[0].value), and the builder shows it at that field.
 */
export interface Comparison {
  type: 'comparison';
  /** One of METRICS, or TRAIT for `trait:<traitName>`. */
  metric: string;
  traitName: string;
  op: string;
  value: string;
  windowDays: string;
  conversionName: string;
  currencyId: string;
  eventName: string;
}

export interface Group {
  type: 'group';
  join: 'all' | 'any';
  children: BuilderNode[];
}

export type BuilderNode = Group | Comparison;

export function newComparison(): Comparison {
  return {
    type: 'comparison',
    metric: 'volume_usd',
    traitName: '',
    op: 'gte',
    value: '',
    windowDays: '',
    conversionName: '',
    currencyId: '',
    eventName: '',
  };
}

export function newGroup(): Group {
  return { type: 'group', join: 'all', children: [newComparison()] };
}

const LEAF_FIELDS = new Set(['metric', 'op', 'value', 'window_days', 'conversion_name', 'currency_id', 'event_name']);
const TRAIT_PREFIX = 'trait:';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function toNode(value: unknown): BuilderNode | undefined {
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'all' || keys[0] === 'any')) {
    const join = keys[0];
    const list = value[join];
    if (!Array.isArray(list)) return undefined;
    const children = list.map(toNode);
    return children.every((child): child is BuilderNode => child !== undefined) ? { type: 'group', join, children } : undefined;
  }
  if (!keys.every((key) => LEAF_FIELDS.has(key)) || typeof value.metric !== 'string' || typeof value.op !== 'string') return undefined;
  // A metric or operator the pickers do not offer is shown as JSON, where it can be seen as it is.
  const known = value.metric.startsWith(TRAIT_PREFIX) || (METRICS as readonly string[]).includes(value.metric);
  if (!known || !(OPS as readonly string[]).includes(value.op)) return undefined;
  const raw = value.value;
  const texts = Array.isArray(raw) ? raw.map(scalarText) : [scalarText(raw)];
  if (texts.some((text) => text === undefined)) return undefined;
  const optional = (key: string) => (value[key] === undefined ? '' : scalarText(value[key]));
  const [windowDays, conversionName, currencyId, eventName] = ['window_days', 'conversion_name', 'currency_id', 'event_name'].map(optional);
  if ([windowDays, conversionName, currencyId, eventName].some((text) => text === undefined)) return undefined;
  const trait = value.metric.startsWith(TRAIT_PREFIX);
  return {
    type: 'comparison',
    metric: trait ? TRAIT : value.metric,
    traitName: trait ? value.metric.slice(TRAIT_PREFIX.length) : '',
    op: value.op,
    value: texts.join(', '),
    windowDays: windowDays!,
    conversionName: conversionName!,
    currencyId: currencyId!,
    eventName: eventName!,
  };
}

/**
 * The builder's tree for a condition: null for none (a static audience), undefined when the JSON is
 * one the builder cannot show (a field it does not know, a value that is an object): it is then
 * edited as JSON. A bare comparison becomes a group of one, which matches the same users.
 */
export function toBuilder(condition: Record<string, unknown> | null): Group | null | undefined {
  if (condition === null) return null;
  const node = toNode(condition);
  if (node === undefined) return undefined;
  return node.type === 'group' ? node : { type: 'group', join: 'all', children: [node] };
}

/** A trait's value as JSON: a number or a boolean when it reads as one (so `gt` compares numbers), else the text. */
function traitValue(text: string): string | number | boolean {
  if (/^-?\d+(\.\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

function comparisonJson(node: Comparison): Record<string, unknown> {
  const trait = node.metric === TRAIT;
  // Figures go as decimal strings, exact; a trait's value as what it reads as.
  const one = (text: string) => (trait ? traitValue(text) : text);
  const value =
    node.op === 'in'
      ? node.value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
          .map(one)
      : one(node.value.trim());
  const json: Record<string, unknown> = { metric: trait ? `${TRAIT_PREFIX}${node.traitName.trim()}` : node.metric, op: node.op, value };
  const days = node.windowDays.trim();
  // Days that are not a whole number go as typed: the API says at the field what it takes.
  if (days) json.window_days = /^\d{1,9}$/.test(days) ? Number(days) : days;
  if (node.conversionName.trim()) json.conversion_name = node.conversionName.trim();
  if (node.currencyId) json.currency_id = node.currencyId;
  if (node.eventName.trim()) json.event_name = node.eventName.trim();
  return json;
}

/** The API's JSON for the builder's tree. */
export function toCondition(node: BuilderNode): Record<string, unknown> {
  return node.type === 'group' ? { [node.join]: node.children.map(toCondition) } : comparisonJson(node);
}

/** The path the API names a child by: `condition.all[2]`. */
export function childPath(groupPath: string, group: Group, index: number): string {
  return `${groupPath}.${group.join}[${index}]`;
}

/** The API's problems at a node: those at its path itself or at one of its own fields, by field (`value`, `op`, ``  for the node). */
export function problemsAt(errors: Record<string, string>, path: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [field, reason] of Object.entries(errors)) {
    if (field === path) found[''] ??= reason;
    else if (field.startsWith(`${path}.`)) {
      const rest = field.slice(path.length + 1);
      // Only the node's own fields: `value[1]` is the value's, `all[0].op` is a child's.
      const own = /^([a-z_]+)(\[\d+\])?$/.exec(rest);
      if (own) found[own[1]!] ??= reason;
    }
  }
  return found;
}
