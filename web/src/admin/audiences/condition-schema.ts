/**
 * The condition language the audience service validates (services/audience/domain/condition.ts:
 * METRICS, OPS, CONDITION_LIMITS), as the builder offers it. test/unit/web/condition-builder.test.ts
 * checks these lists against the service's, so a metric added there shows here.
 */
export const METRICS = ['volume_usd', 'revenue_usd', 'conversions', 'referred_users', 'referred_volume_usd', 'earnings', 'event_count'] as const;
export const OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq', 'in'] as const;

/** The builder's pick for a trait: the metric is then `trait:<name>`. */
export const TRAIT = 'trait';

/** What the builder's figure picker offers: every metric, then a trait. */
export const METRIC_CHOICES = [...METRICS, TRAIT] as const;

export const METRIC_LABELS: Record<(typeof METRICS)[number] | typeof TRAIT, string> = {
  volume_usd: 'Volume (USD)',
  revenue_usd: 'Revenue (USD)',
  conversions: 'Conversions',
  referred_users: 'Users referred',
  referred_volume_usd: 'Volume of referred users (USD)',
  earnings: 'Earnings (base units of a currency)',
  event_count: 'Tracking events',
  trait: 'A trait the project pushed',
};

export const OP_LABELS: Record<(typeof OPS)[number], string> = {
  gt: 'more than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  eq: 'equal to',
  neq: 'not equal to',
  in: 'one of (comma-separated)',
};

/** Metrics whose conversions can be narrowed to one conversion name. */
export const NAMED_METRICS: readonly string[] = ['volume_usd', 'revenue_usd', 'conversions'];
/** Groups within groups the API takes (CONDITION_LIMITS.maxGroupDepth): the builder offers no deeper one. */
export const MAX_GROUP_DEPTH = 5;
