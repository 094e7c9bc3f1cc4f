import { useId, useState } from 'react';
import { ApiError } from '../../api/client';
import { fieldErrors } from '../../ui/field-errors';
import { ConditionBuilder } from './ConditionBuilder';
import { type Group, toBuilder, toCondition } from './condition-builder';
import { describeCondition, EXAMPLE_CONDITION, parseCondition } from './condition';
import { fieldMessage } from '../../ui/error-messages';

/**
 * The condition of a dynamic audience: built visually (groups of comparisons, each problem the API
 * names shown at its field), or as JSON in the advanced view, with a readable rendering beside it and
 * the API's problems listed by path. Both edit the same JSON text; a JSON the builder cannot show
 * stays in the advanced view. No condition makes a static audience.
 */
export function ConditionEditor({ value, onChange, error }: { value: string; onChange(text: string): void; error: unknown }) {
  const parsed = parseCondition(value);
  const initial = 'error' in parsed ? undefined : toBuilder(parsed.condition);
  const [mode, setMode] = useState<'builder' | 'json'>(initial === undefined ? 'json' : 'builder');
  const [root, setRoot] = useState<Group | null>(initial ?? null);
  const [cannotBuild, setCannotBuild] = useState(false);
  const toggleId = useId();
  const violations = error instanceof ApiError ? error.details : [];
  const conditionViolations = violations.filter(
    (violation) => violation.field === 'condition' || violation.field.startsWith('condition.') || violation.field.startsWith('condition['),
  );
  const build = (next: Group | null) => {
    setRoot(next);
    onChange(next ? JSON.stringify(toCondition(next), null, 2) : '');
  };
  const showBuilder = () => {
    const tree = 'error' in parsed ? undefined : toBuilder(parsed.condition);
    setCannotBuild(tree === undefined);
    if (tree === undefined) return;
    setRoot(tree);
    setMode('builder');
  };
  return (
    <fieldset className="condition-editor">
      <legend>Condition (optional: leave empty for a static audience)</legend>
      <div className="actions" role="group" aria-labelledby={toggleId}>
        <span id={toggleId} className="subtle">
          Edit as:
        </span>
        <button type="button" aria-pressed={mode === 'builder'} onClick={showBuilder}>
          Builder
        </button>
        <button
          type="button"
          aria-pressed={mode === 'json'}
          onClick={() => {
            setCannotBuild(false);
            setMode('json');
          }}
        >
          JSON (advanced)
        </button>
      </div>
      {cannotBuild ? (
        <p className="field-error" role="alert">
          The builder cannot show this condition (it is not valid JSON, or holds fields the builder does not offer): edit it as JSON.
        </p>
      ) : null}
      {mode === 'builder' ? (
        <ConditionBuilder root={root} onChange={build} errors={fieldErrors(error)} />
      ) : (
        <div className="condition-columns">
          <div>
            <label htmlFor="condition-json">Condition as JSON</label>
            <textarea
              id="condition-json"
              name="condition"
              rows={12}
              spellCheck={false}
              value={value}
              onChange={(event) => onChange(event.target.value)}
              aria-describedby="condition-help"
              aria-invalid={'error' in parsed || conditionViolations.length > 0}
            />
            <p id="condition-help" className="help">
              A group <code>{'{ "all": [...] }'}</code> or <code>{'{ "any": [...] }'}</code> of comparisons{' '}
              <code>{'{ "metric", "op", "value" }'}</code>.{' '}
              <button type="button" className="link-button" onClick={() => onChange(JSON.stringify(EXAMPLE_CONDITION, null, 2))}>
                Insert an example
              </button>
            </p>
          </div>
          <div aria-live="polite">
            <h2 className="small-heading">Reads as</h2>
            {'error' in parsed ? (
              <p className="field-error">{parsed.error}</p>
            ) : parsed.condition ? (
              <ul className="condition-tree">
                {describeCondition(parsed.condition).map((line, index) => (
                  <li key={index} style={{ paddingLeft: `${line.depth * 1.25}rem` }}>
                    {line.text}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="help">No condition: users are added by hand or by upload.</p>
            )}
          </div>
        </div>
      )}
      {mode === 'json' && conditionViolations.length > 0 ? (
        <ul className="field-errors" aria-label="Problems in the condition">
          {conditionViolations.map((violation) => (
            <li key={`${violation.field}:${violation.reason}`}>
              <code>{violation.field}</code>: {fieldMessage(violation.reason)}
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
