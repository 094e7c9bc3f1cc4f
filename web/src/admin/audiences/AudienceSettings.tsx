import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiBody, ApiResult } from '../../api/client';
import { fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { parseCondition } from './condition';
import { ConditionEditor } from './ConditionEditor';
import { evaluationKey } from './Evaluation';

type Audience = ApiResult<'/api/v1/projects/{projectId}/audiences/{audienceId}', 'get'>;
type Changes = ApiBody<'/api/v1/projects/{projectId}/audiences/{audienceId}', 'patch'>;

const conditionText = (condition: Audience['condition']) => (condition ? JSON.stringify(condition, null, 2) : '');

/**
 * An audience's name, description, tier rank and condition, changed together: only what differs
 * from what the API stored is sent, its problems show at their fields and what was typed stays.
 * A new condition starts a new evaluation; none makes the audience static (its static entries stay).
 */
export function AudienceSettings({ audience }: { audience: Audience }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [name, setName] = useState(audience.name);
  const [description, setDescription] = useState(audience.description ?? '');
  const [tierRank, setTierRank] = useState(audience.tier_rank === null ? '' : String(audience.tier_rank));
  const [condition, setCondition] = useState(conditionText(audience.condition));
  const [saved, setSaved] = useState('');
  const save = useMutation({
    mutationFn: (body: Changes) =>
      api('patch', '/api/v1/projects/{projectId}/audiences/{audienceId}', { path: { projectId, audienceId: audience.id }, body }),
    onSuccess: async (_next, body) => {
      setSaved(
        body.condition ? 'Saved: the audience is changed, and a new evaluation of its condition has started.' : 'Saved: the audience is changed.',
      );
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['audience', projectId, audience.id] }),
        queryClient.invalidateQueries({ queryKey: ['audiences', projectId] }),
        queryClient.invalidateQueries({ queryKey: evaluationKey(projectId, audience.id) }),
        queryClient.invalidateQueries({ queryKey: ['entries', projectId, audience.id] }),
      ]);
    },
  });
  const parsed = parseCondition(condition);
  const rankIsWhole = tierRank.trim() === '' || /^-?\d{1,10}$/.test(tierRank.trim());
  const changes: Changes = {};
  if (name.trim() !== audience.name) changes.name = name.trim();
  if ((description.trim() || null) !== audience.description) changes.description = description.trim() || null;
  const rank = tierRank.trim() === '' ? null : Number(tierRank.trim());
  if (rankIsWhole && rank !== audience.tier_rank) changes.tier_rank = rank;
  if (!('error' in parsed) && JSON.stringify(parsed.condition) !== JSON.stringify(audience.condition)) changes.condition = parsed.condition;
  const errors = fieldErrors(save.error);
  const tierRankError = rankIsWhole ? errors.tier_rank : 'Enter a whole number from 1 to 10,000, or leave it empty for no tier.';
  const edit = (set: (value: string) => void) => (value: string) => {
    setSaved('');
    set(value);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved('');
    save.mutate(changes);
  };
  return (
    <section aria-labelledby="audience-settings-title">
      <h2 id="audience-settings-title">Change the audience</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <TextField id="audience-edit-name" label="Audience name" value={name} onChange={edit(setName)} error={errors.name} />
        <TextField
          id="audience-edit-description"
          label="Description (optional)"
          value={description}
          onChange={edit(setDescription)}
          error={errors.description}
        />
        <TextField
          id="audience-edit-tier-rank"
          label="Tier rank (1 to 10,000, higher is a higher tier; empty: not a tier)"
          inputMode="numeric"
          value={tierRank}
          onChange={edit(setTierRank)}
          error={tierRankError}
        />
        <ConditionEditor value={condition} onChange={edit(setCondition)} error={save.error} />
        {'error' in parsed ? (
          <p className="field-error" role="alert">
            {parsed.error}
          </p>
        ) : null}
        {save.isError ? <ErrorMessage error={save.error} title="Not saved" showDetails={false} /> : null}
        <div>
          <button type="submit" disabled={save.isPending || !rankIsWhole || 'error' in parsed || Object.keys(changes).length === 0}>
            {save.isPending ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
      <p role="status" aria-live="polite" className={saved ? 'state' : undefined}>
        {saved}
      </p>
    </section>
  );
}
