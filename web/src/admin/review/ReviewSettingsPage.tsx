import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { fieldErrors, FieldError } from '../../ui/field-errors';
import { formatDateTime, formatDecimal } from '../../ui/format';
import { SettingsPage, type SettingsFormProps } from '../../ui/SettingsPage';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import {
  type ReviewRule,
  type ReviewSettings,
  type ReviewSettingsChanges,
  reviewKeys,
  RULE_NAMES,
  RULES,
  ruleChanges,
  ruleProblems,
  ruleValues,
} from './review';

/** What each rule does, and its limit's unit, under its checkbox. */
const RULE_HELP: Record<ReviewRule, { on: string; unit: string; help: string }> = {
  max_conversions_per_user_per_hour: {
    on: 'Review a user’s conversions beyond a number in an hour',
    unit: 'Conversions an hour (1 to 1,000,000)',
    help: 'A conversion is reviewed when its user has more than this many in the hour ending at it.',
  },
  min_seconds_from_referral_to_conversion: {
    on: 'Review conversions that come too soon after the referral',
    unit: 'Seconds (0 to 31,536,000)',
    help: 'A conversion is reviewed when it comes fewer seconds than this after its user was referred.',
  },
  max_reward_per_conversion: {
    on: 'Review conversions whose reward is above a limit',
    unit: 'Base units of the conversion’s currency',
    help: 'A conversion is reviewed when its total planned reward (every payout of it) is above this, in base units (1 USDC of 6 decimals is 1,000,000).',
  },
};

/** The project's review rules: each off, or on with its limit. They apply to conversions paid after a change. */
export function ReviewSettingsPage() {
  const { projectId, api } = useProject();
  const settings = useQuery({
    queryKey: reviewKeys.settings(projectId),
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/review-settings', { path: { projectId }, signal }),
  });
  return (
    <SettingsPage
      id="review-settings-title"
      title="Review settings"
      loadingLabel="Loading the review settings…"
      settings={settings}
      form={(props) => <SettingsForm {...props} />}
    />
  );
}

function SettingsForm({ settings, onSaved, onEdit }: SettingsFormProps<ReviewSettings>) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [initial] = useState(() => ruleValues(settings));
  const [values, setValues] = useState(initial);
  const [checked, setChecked] = useState(false);
  const save = useMutation({
    mutationFn: (body: ReviewSettingsChanges) => api('patch', '/api/v1/projects/{projectId}/review-settings', { path: { projectId }, body }),
    onSuccess: (next) => {
      onSaved();
      queryClient.setQueryData(reviewKeys.settings(projectId), next);
    },
  });
  const changes = ruleChanges(initial, values);
  const problems = checked ? ruleProblems(values) : {};
  const errors = { ...fieldErrors(save.error), ...problems };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    onEdit();
    setChecked(true);
    if (Object.keys(ruleProblems(values)).length > 0) return;
    save.mutate(changes);
  };
  const edit = (rule: ReviewRule, next: Partial<{ on: boolean; limit: string }>) => {
    onEdit();
    setValues((current) => ({ ...current, [rule]: { ...current[rule], ...next } }));
  };
  return (
    <form className="stack" onSubmit={onSubmit} noValidate aria-labelledby="review-settings-title">
      <p className="subtle">
        {settings.updated_at ? `Last changed ${formatDateTime(settings.updated_at)}.` : 'Every rule is off: never changed.'} A conversion that breaks
        a rule waits in the review queue, its payouts unpaid until an admin decides. A change applies to conversions paid after it.
      </p>
      {RULES.map((rule) => {
        const value = values[rule];
        const text = RULE_HELP[rule];
        const id = `review-rule-${rule}`;
        return (
          <fieldset className="stack" key={rule}>
            <legend>{RULE_NAMES[rule]}</legend>
            <div className="checkbox-field">
              <input id={`${id}-on`} type="checkbox" checked={value.on} onChange={(event) => edit(rule, { on: event.target.checked })} />
              <label className="inline-label" htmlFor={`${id}-on`}>
                {text.on}
              </label>
            </div>
            {value.on ? (
              <>
                <label htmlFor={id}>{text.unit}</label>
                <input
                  id={id}
                  inputMode="numeric"
                  autoComplete="off"
                  value={value.limit}
                  onChange={(event) => edit(rule, { limit: event.target.value })}
                  aria-invalid={errors[rule] ? true : undefined}
                  aria-describedby={`${id}-help ${id}-error`}
                />
                <p id={`${id}-help`} className="subtle">
                  {text.help}
                  {rule === 'max_reward_per_conversion' && /^\d+$/.test(value.limit.trim())
                    ? ` Limit: ${formatDecimal(value.limit.trim())} base units.`
                    : ''}
                </p>
                <FieldError id={`${id}-error`} message={errors[rule]} />
              </>
            ) : (
              <p className="subtle">Off.</p>
            )}
          </fieldset>
        );
      })}
      {save.isError ? <ErrorMessage error={save.error} showDetails={false} title="Not saved" /> : null}
      <div>
        <button type="submit" disabled={save.isPending || Object.keys(changes).length === 0}>
          {save.isPending ? 'Saving…' : 'Save review settings'}
        </button>
      </div>
    </form>
  );
}
