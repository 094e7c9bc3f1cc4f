import { useId } from 'react';
import { FieldError } from '../../ui/field-errors';
import { currencyLabel, useCurrencyChoices } from '../payouts/currencies';
import { type BuilderNode, childPath, type Comparison, type Group, newComparison, newGroup, problemsAt } from './condition-builder';
import { MAX_GROUP_DEPTH, METRIC_CHOICES, METRIC_LABELS, NAMED_METRICS, OP_LABELS, OPS, TRAIT } from './condition-schema';

/**
 * The condition as groups ("all of" / "any of") of comparisons, each a metric or trait, an
 * operator and a value picked from what the API takes, with the API's problem under each field.
 * No condition (null) is a static audience.
 */
export function ConditionBuilder({
  root,
  onChange,
  errors,
}: {
  root: Group | null;
  onChange(root: Group | null): void;
  /** The API's field problems by path (`condition.all[0].value`). */
  errors: Record<string, string>;
}) {
  if (!root)
    return (
      <div>
        <p className="help">No condition: users are added by hand or by upload.</p>
        <button type="button" onClick={() => onChange(newGroup())}>
          Add a comparison
        </button>
      </div>
    );
  return <GroupEditor group={root} path="condition" depth={1} errors={errors} onChange={onChange} onRemove={() => onChange(null)} />;
}

function GroupEditor({
  group,
  path,
  depth,
  errors,
  onChange,
  onRemove,
}: {
  group: Group;
  path: string;
  depth: number;
  errors: Record<string, string>;
  onChange(group: Group): void;
  onRemove(): void;
}) {
  const joinId = useId();
  const problems = problemsAt(errors, path);
  const problem = problems[''] ?? problems[group.join];
  const setChild = (index: number, child: BuilderNode) =>
    onChange({ ...group, children: group.children.map((old, at) => (at === index ? child : old)) });
  const removeChild = (index: number) => {
    const children = group.children.filter((_child, at) => at !== index);
    // The root with nothing left is no condition (a static audience); an inner group with nothing left goes.
    if (children.length === 0) onRemove();
    else onChange({ ...group, children });
  };
  return (
    <fieldset className="condition-group">
      <legend>
        <label htmlFor={joinId}>Users matching </label>
        <select id={joinId} value={group.join} onChange={(event) => onChange({ ...group, join: event.target.value as Group['join'] })}>
          <option value="all">all of</option>
          <option value="any">any of</option>
        </select>
      </legend>
      <FieldError message={problem} />
      <ol className="condition-children">
        {group.children.map((child, index) => (
          <li key={index}>
            {child.type === 'group' ? (
              <GroupEditor
                group={child}
                path={childPath(path, group, index)}
                depth={depth + 1}
                errors={errors}
                onChange={(next) => setChild(index, next)}
                onRemove={() => removeChild(index)}
              />
            ) : (
              <ComparisonEditor
                comparison={child}
                path={childPath(path, group, index)}
                errors={errors}
                onChange={(next) => setChild(index, next)}
                onRemove={() => removeChild(index)}
              />
            )}
          </li>
        ))}
      </ol>
      <div className="actions">
        <button type="button" onClick={() => onChange({ ...group, children: [...group.children, newComparison()] })}>
          Add a comparison
        </button>
        {depth < MAX_GROUP_DEPTH ? (
          <button type="button" onClick={() => onChange({ ...group, children: [...group.children, newGroup()] })}>
            Add a group
          </button>
        ) : null}
        <button type="button" onClick={onRemove}>
          {depth === 1 ? 'Remove the condition' : 'Remove this group'}
        </button>
      </div>
    </fieldset>
  );
}

function ComparisonEditor({
  comparison,
  path,
  errors,
  onChange,
  onRemove,
}: {
  comparison: Comparison;
  path: string;
  errors: Record<string, string>;
  onChange(comparison: Comparison): void;
  onRemove(): void;
}) {
  const id = useId();
  const currencies = useCurrencyChoices();
  const problems = problemsAt(errors, path);
  const set = (changes: Partial<Comparison>) => onChange({ ...comparison, ...changes });
  const trait = comparison.metric === TRAIT;
  const field = (name: string, label: string, value: string, key: keyof Comparison, error: string | undefined, inputMode?: 'numeric' | 'decimal') => (
    <div>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        value={value}
        inputMode={inputMode}
        autoComplete="off"
        onChange={(event) => set({ [key]: event.target.value })}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-${name}-error`}
      />
      <FieldError id={`${id}-${name}-error`} message={error} />
    </div>
  );
  return (
    <div className="condition-comparison" role="group" aria-label={`Comparison ${path}`}>
      <FieldError message={problems['']} />
      <div className="inline-fields">
        <div>
          <label htmlFor={`${id}-metric`}>Figure</label>
          <select
            id={`${id}-metric`}
            value={comparison.metric}
            onChange={(event) => set({ metric: event.target.value })}
            aria-invalid={problems.metric ? true : undefined}
            aria-describedby={`${id}-metric-error`}
          >
            {METRIC_CHOICES.map((metric) => (
              <option key={metric} value={metric}>
                {METRIC_LABELS[metric]}
              </option>
            ))}
          </select>
          <FieldError id={`${id}-metric-error`} message={trait ? undefined : problems.metric} />
        </div>
        {trait ? field('trait', 'Trait name', comparison.traitName, 'traitName', problems.metric) : null}
        <div>
          <label htmlFor={`${id}-op`}>Is</label>
          <select
            id={`${id}-op`}
            value={comparison.op}
            onChange={(event) => set({ op: event.target.value })}
            aria-invalid={problems.op ? true : undefined}
            aria-describedby={`${id}-op-error`}
          >
            {OPS.map((op) => (
              <option key={op} value={op}>
                {OP_LABELS[op]}
              </option>
            ))}
          </select>
          <FieldError id={`${id}-op-error`} message={problems.op} />
        </div>
        {field('value', 'Value', comparison.value, 'value', problems.value, trait ? undefined : 'decimal')}
        {trait ? null : field('days', 'Over the last days (optional)', comparison.windowDays, 'windowDays', problems.window_days, 'numeric')}
        {NAMED_METRICS.includes(comparison.metric) || comparison.conversionName
          ? field('conversion', 'Conversion name (optional)', comparison.conversionName, 'conversionName', problems.conversion_name)
          : null}
        {comparison.metric === 'event_count' || comparison.eventName
          ? field('event', 'Event name', comparison.eventName, 'eventName', problems.event_name)
          : null}
        {comparison.metric === 'earnings' || comparison.currencyId ? (
          <div>
            <label htmlFor={`${id}-currency`}>Currency</label>
            <select
              id={`${id}-currency`}
              value={comparison.currencyId}
              onChange={(event) => set({ currencyId: event.target.value })}
              aria-invalid={problems.currency_id ? true : undefined}
              aria-describedby={`${id}-currency-error`}
            >
              <option value="">Choose a currency</option>
              {(currencies.data ?? []).map((currency) => (
                <option key={currency.id} value={currency.id}>
                  {currencyLabel(currency)}
                </option>
              ))}
            </select>
            <FieldError id={`${id}-currency-error`} message={problems.currency_id} />
          </div>
        ) : null}
        <button type="button" onClick={onRemove}>
          Remove<span className="visually-hidden"> this comparison</span>
        </button>
      </div>
    </div>
  );
}
