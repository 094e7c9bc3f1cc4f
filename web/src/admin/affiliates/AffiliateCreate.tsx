import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { IDENTIFIER_TYPES } from '../../ui/identifier-types';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';

/**
 * Makes a user an affiliate: its identifier, name, region and optionally its first code. The API's
 * problems show at their fields and what was typed stays; the new affiliate's page then opens saying so.
 */
export function AffiliateCreate() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [identifier, setIdentifier] = useState('');
  const [identifierType, setIdentifierType] = useState<string>(IDENTIFIER_TYPES[0]);
  const [name, setName] = useState('');
  const [region, setRegion] = useState('');
  const [code, setCode] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates', {
        path: { projectId },
        body: {
          identifier: identifier.trim(),
          identifier_type: identifierType,
          name: name.trim(),
          region: region.trim() || null,
          ...(code.trim() ? { code: code.trim() } : {}),
        },
      }),
    onSuccess: async (affiliate) => {
      await queryClient.invalidateQueries({ queryKey: ['affiliates', projectId] });
      await navigate(`../${encodeURIComponent(affiliate.identifier_type)}/${encodeURIComponent(affiliate.identifier)}`, {
        relative: 'path',
        state: { notice: `${affiliate.name || affiliate.identifier} is now an affiliate of the program.` },
      });
    },
  });
  const errors = fieldErrors(create.error);
  // The agency names the user's fields under `user.` (its gRPC request's), the body's are top-level: either is this form's field.
  const identifierError = errors.identifier ?? errors['user.identifier'];
  const identifierTypeError = errors.identifier_type ?? errors['user.identifier_type'];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="new-affiliate-title">
      <p className="breadcrumb">
        <Link to="/admin/affiliates">Affiliates</Link> /
      </p>
      <h1 id="new-affiliate-title">New affiliate</h1>
      <form className="stack" onSubmit={submit} noValidate>
        <TextField id="affiliate-identifier" label="Identifier" value={identifier} onChange={setIdentifier} error={identifierError} />
        <label htmlFor="affiliate-identifier-type">Identifier type</label>
        <select
          id="affiliate-identifier-type"
          value={identifierType}
          onChange={(event) => setIdentifierType(event.target.value)}
          aria-invalid={identifierTypeError ? true : undefined}
          aria-describedby="affiliate-identifier-type-error"
        >
          {IDENTIFIER_TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
        <FieldError id="affiliate-identifier-type-error" message={identifierTypeError} />
        <TextField id="affiliate-name" label="Name" value={name} onChange={setName} error={errors.name} />
        <TextField
          id="affiliate-region"
          label="Region (optional: a country code such as US)"
          value={region}
          onChange={setRegion}
          error={errors.region}
        />
        <TextField
          id="affiliate-code"
          label="First code (optional: 3 to 32 of A-Z, 0-9, _ and -)"
          value={code}
          onChange={setCode}
          error={errors.code}
        />
        {create.isError ? <ErrorMessage error={create.error} title="The affiliate was not created" showDetails={false} /> : null}
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create affiliate'}
          </button>
        </div>
      </form>
    </section>
  );
}
