/**
 * A readable view of a dynamic audience's condition (README: "Dynamic audiences"): the JSON the API
 * takes, turned into nested sentences. Only for display: the audience service checks conditions,
 * and its 400 names each problem by path (condition.all[2].op), which the editor shows.
 */
export type ConditionLine = { depth: number; text: string };

const OPS: Record<string, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=', neq: '≠', in: 'is one of' };

export const EXAMPLE_CONDITION = {
  all: [
    { metric: 'volume_usd', op: 'gte', value: '1000', window_days: 30 },
    {
      any: [
        { metric: 'referred_users', op: 'gt', value: 5 },
        { metric: 'trait:country', op: 'in', value: ['US', 'DE'] },
      ],
    },
  ],
};

function describeLeaf(leaf: Record<string, unknown>): string {
  const value = Array.isArray(leaf.value) ? leaf.value.map(String).join(', ') : String(leaf.value);
  const extras = [
    leaf.window_days !== undefined ? `over the last ${String(leaf.window_days)} days` : '',
    leaf.conversion_name !== undefined ? `of conversions named ${String(leaf.conversion_name)}` : '',
    leaf.currency_id !== undefined ? `in currency ${String(leaf.currency_id)}` : '',
  ].filter(Boolean);
  return [String(leaf.metric), OPS[String(leaf.op)] ?? String(leaf.op), value, ...extras].join(' ');
}

export function describeCondition(node: unknown, depth = 0): ConditionLine[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [{ depth, text: 'not a group or a comparison' }];
  const record = node as Record<string, unknown>;
  for (const group of ['all', 'any'] as const) {
    if (Array.isArray(record[group])) {
      return [
        { depth, text: group === 'all' ? 'All of:' : 'Any of:' },
        ...(record[group] as unknown[]).flatMap((child) => describeCondition(child, depth + 1)),
      ];
    }
  }
  return [{ depth, text: describeLeaf(record) }];
}

/** The editor's text as a condition: null for an empty editor (a static audience), or the JSON syntax error. */
export function parseCondition(text: string): { condition: Record<string, unknown> | null } | { error: string } {
  if (!text.trim()) return { condition: null };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { error: 'The condition must be a JSON object: { "all": [...] } or { "any": [...] }.' };
    return { condition: value as Record<string, unknown> };
  } catch (error) {
    return { error: `The condition is not valid JSON: ${(error as Error).message}` };
  }
}
