import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useFieldErrors } from '../../ui/field-errors';
import { IDENTIFIER_TYPES } from '../../ui/identifier-types';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';

/** Makes an existing affiliate a master with a spread; the API's problems show at their fields, then the new master's page opens. */
export function DesignateMaster() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [identifier, setIdentifier] = useState('');
  const [identifierType, setIdentifierType] = useState<string>(IDENTIFIER_TYPES[0]);
  const [spread, setSpread] = useState('');
  const designate = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/agencies', {
        path: { projectId },
        // The spread goes as typed: the API says what is wrong with it (not a whole number, out of range) at its field.
        body: { user_identifier: identifier.trim(), user_identifier_type: identifierType, spread_bps: Number(spread) },
      }),
    onSuccess: async (master) => {
      await queryClient.invalidateQueries({ queryKey: ['masters', projectId] });
      // A sub-affiliate designated a master was unbound from its master by the designation: its page says so.
      const from = master.unbound_from;
      await navigate(
        master.id,
        from ? { state: { notice: `It was a sub-affiliate of ${from.identifier}, and is no longer bound to that master.` } } : undefined,
      );
    },
  });
  const [missingSpread, setMissingSpread] = useState(false);
  const refusal = useFieldErrors(designate.error);
  const errors = { ...refusal.errors };
  if (missingSpread) errors.spread_bps = 'Enter the spread in basis points.';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty field would be read as 0: a spread is never assumed.
    setMissingSpread(spread.trim() === '');
    if (spread.trim() !== '') designate.mutate();
  };
  return (
    <section className="panel" aria-labelledby="designate-title">
      <h2 id="designate-title">Designate a master affiliate</h2>
      <p className="help">
        The master earns its spread on every conversion of the sub-affiliates you bind to it. 100 basis points are 1%. A sub-affiliate designated a
        master leaves its own master.
      </p>
      <form className="stack" onSubmit={submit} noValidate>
        <TextField
          id="designate-identifier"
          label="Affiliate identifier"
          value={identifier}
          onChange={(value) => {
            refusal.edited('user_identifier');
            setIdentifier(value);
          }}
          error={errors.user_identifier}
        />
        <label htmlFor="designate-type">Identifier type</label>
        <select id="designate-type" value={identifierType} onChange={(event) => setIdentifierType(event.target.value)}>
          {IDENTIFIER_TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
        <TextField
          id="designate-spread"
          label="Spread (basis points, 0 to 10,000)"
          inputMode="numeric"
          value={spread}
          onChange={(value) => {
            refusal.edited('spread_bps');
            setSpread(value);
          }}
          error={errors.spread_bps}
        />
        {designate.isError && refusal.error ? <ErrorMessage error={refusal.error} title="The master was not designated" showDetails={false} /> : null}
        <div>
          <button type="submit" disabled={designate.isPending}>
            {designate.isPending ? 'Designating…' : 'Designate master'}
          </button>
        </div>
      </form>
    </section>
  );
}
