import { FieldError } from '../../ui/field-errors';
import { formatDecimal } from '../../ui/format';
import { parseTokenAmount, type RewardDraft, type RewardKind } from './reward';

const KINDS: Array<{ kind: RewardKind; label: string }> = [
  { kind: 'none', label: 'Nothing' },
  { kind: 'fixed', label: 'Fixed amount' },
  { kind: 'bps', label: 'Share of reward_base' },
];

/**
 * One reward of the terms: nothing, a fixed amount typed in whole tokens of the currency (the base
 * units it is sent as shown beside it), or basis points of the conversion's reward_base.
 */
export function RewardField({
  id,
  legend,
  draft,
  onChange,
  currency,
  error,
  allowNone = true,
}: {
  id: string;
  legend: string;
  draft: RewardDraft;
  onChange(draft: RewardDraft): void;
  /** The terms' currency; undefined until one is chosen. */
  currency: { name: string; decimals: number } | undefined;
  /** Why the API or the form refused this reward. */
  error: string | undefined;
  allowNone?: boolean;
}) {
  const parsed = draft.kind === 'fixed' && currency && draft.amount.trim() !== '' ? parseTokenAmount(draft.amount, currency.decimals) : undefined;
  return (
    <fieldset className="reward-field" aria-describedby={`${id}-error`}>
      <legend>{legend}</legend>
      <div className="choice-row">
        {KINDS.filter(({ kind }) => allowNone || kind !== 'none').map(({ kind, label }) => (
          <span key={kind} className="checkbox-field">
            <input type="radio" id={`${id}-kind-${kind}`} name={id} checked={draft.kind === kind} onChange={() => onChange({ ...draft, kind })} />
            <label className="inline-label" htmlFor={`${id}-kind-${kind}`}>
              {label}
            </label>
          </span>
        ))}
      </div>
      {draft.kind === 'fixed' ? (
        <div>
          <label htmlFor={`${id}-amount`}>{currency ? `Amount in ${currency.name} (whole tokens)` : 'Amount (whole tokens)'}</label>
          <input
            id={`${id}-amount`}
            inputMode="decimal"
            value={draft.amount}
            disabled={!currency}
            onChange={(event) => onChange({ ...draft, amount: event.target.value })}
            aria-describedby={`${id}-amount-help`}
          />
          <p id={`${id}-amount-help`} className="help">
            {!currency
              ? 'Choose the currency first.'
              : parsed && 'baseUnits' in parsed
                ? `Sent as ${formatDecimal(parsed.baseUnits)} base units (${currency.decimals} decimals).`
                : `Up to ${currency.decimals} decimals, e.g. 1.5.`}
          </p>
        </div>
      ) : null}
      {draft.kind === 'bps' ? (
        <div>
          <label htmlFor={`${id}-bps`}>Basis points of reward_base</label>
          <input
            id={`${id}-bps`}
            inputMode="numeric"
            value={draft.bps}
            onChange={(event) => onChange({ ...draft, bps: event.target.value })}
            aria-describedby={`${id}-bps-help`}
          />
          <p id={`${id}-bps-help`} className="help">
            0 to 10,000: 100 bps is 1 % of the conversion’s reward_base, floored to whole base units.
          </p>
        </div>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}
