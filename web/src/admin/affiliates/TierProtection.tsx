import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { useAffiliateRefresh } from './refresh';

/**
 * Protects an affiliate's tier for some days (a tier: an audience with a tier rank): while it lasts
 * its tier in force is the higher of the protected one and the one it qualifies for. A new protection
 * replaces the one in force; ending it is confirmed.
 */
export function TierProtection({ identifier, identifierType, protectedNow }: { identifier: string; identifierType: string; protectedNow: boolean }) {
  const { projectId, api } = useProject();
  const refresh = useAffiliateRefresh(identifier, identifierType);
  const tiers = useQuery({
    queryKey: ['audiences', projectId, 'all'],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, query: { page_size: 100 }, signal }),
    select: (page) => page.results.filter((audience) => audience.tier_rank !== null).sort((a, b) => (b.tier_rank ?? 0) - (a.tier_rank ?? 0)),
  });
  const [tierId, setTierId] = useState('');
  const [days, setDays] = useState('30');
  const [ending, setEnding] = useState(false);
  const [done, setDone] = useState('');
  const target = { path: { projectId, userIdentifier: identifier }, query: { identifier_type: identifierType } };
  const protect = useMutation({
    mutationFn: () =>
      api('put', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tier-protection', {
        ...target,
        // The days go as typed: the API names what is wrong with them at the field.
        body: { tier_id: tierId, protection_days: Number(days.trim()) },
      }),
    onSuccess: async (affiliate) => {
      setDone(
        affiliate.tier_protection ? `The tier is protected for ${affiliate.tier_protection.days_remaining} days.` : 'The tier protection is saved.',
      );
      await refresh();
    },
  });
  const end = useMutation({
    mutationFn: () => api('delete', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tier-protection', target),
    onSuccess: async () => {
      setEnding(false);
      setDone('The tier protection ended: its tier in force is the one it qualifies for.');
      await refresh();
    },
  });
  const errors = fieldErrors(protect.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone('');
    protect.mutate();
  };
  const choices = tiers.data ?? [];
  return (
    <>
      <h3>Protect its tier</h3>
      {tiers.isError ? <ErrorMessage error={tiers.error} /> : null}
      {tiers.data && choices.length === 0 ? (
        <p className="help">No audience is a tier yet: give one a tier rank on its page.</p>
      ) : (
        <form className="stack" onSubmit={submit} noValidate aria-label="Protect its tier">
          <label htmlFor="protect-tier">Tier</label>
          <select
            id="protect-tier"
            value={tierId}
            onChange={(event) => setTierId(event.target.value)}
            aria-invalid={errors.tier_id ? true : undefined}
            aria-describedby="protect-tier-error"
          >
            <option value="">Choose a tier</option>
            {choices.map((tier) => (
              <option key={tier.id} value={tier.id}>
                {tier.name} (rank {tier.tier_rank})
              </option>
            ))}
          </select>
          <FieldError id="protect-tier-error" message={errors.tier_id} />
          <TextField
            id="protect-days"
            label="For how many days (1 to 365)"
            inputMode="numeric"
            value={days}
            onChange={setDays}
            error={errors.protection_days}
          />
          {protect.isError && !errors.tier_id && !errors.protection_days ? (
            <ErrorMessage error={protect.error} title="Not protected" showDetails={false} />
          ) : null}
          <div className="actions">
            <button type="submit" disabled={protect.isPending}>
              {protect.isPending ? 'Protecting…' : 'Protect tier'}
            </button>{' '}
            {protectedNow ? (
              <button type="button" onClick={() => setEnding(true)}>
                End protection…
              </button>
            ) : null}
          </div>
        </form>
      )}
      <p role="status" aria-live="polite" className={done ? 'state' : undefined}>
        {done}
      </p>
      <ConfirmMutationDialog
        open={ending}
        title="End the tier protection now?"
        confirmLabel="End protection"
        mutation={end}
        onClose={() => setEnding(false)}
      >
        <p>Its tier in force becomes the one its memberships qualify it for, from now on.</p>
      </ConfirmMutationDialog>
    </>
  );
}
