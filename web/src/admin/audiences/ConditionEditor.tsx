import type { FieldViolation } from '../../api/client';
import { describeCondition, EXAMPLE_CONDITION, parseCondition } from './condition';
import { fieldMessage } from '../../ui/error-messages';

/**
 * The condition of a dynamic audience as JSON, with a readable rendering beside it and the API's
 * validation errors listed by path. An empty editor makes a static audience.
 */
export function ConditionEditor({ value, onChange, violations }: { value: string; onChange(text: string): void; violations: FieldViolation[] }) {
  const parsed = parseCondition(value);
  const conditionViolations = violations.filter(
    (violation) => violation.field === 'condition' || violation.field.startsWith('condition.') || violation.field.startsWith('condition['),
  );
  return (
    <fieldset className="condition-editor">
      <legend>Condition (optional: leave empty for a static audience)</legend>
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
            A group <code>{'{ "all": [...] }'}</code> or <code>{'{ "any": [...] }'}</code> of comparisons <code>{'{ "metric", "op", "value" }'}</code>
            .{' '}
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
      {conditionViolations.length > 0 ? (
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
