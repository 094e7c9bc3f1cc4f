import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { fieldMessage } from '../../ui/error-messages';
import { IDENTIFIER_TYPES } from '../../ui/identifier-types';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { refreshMaster } from './queries';

/** "a, b\nc" -> ["a", "b", "c"]: identifiers separated by commas, spaces or lines. */
export function parseIdentifiers(text: string): string[] {
  return text.split(/[\s,;]+/).filter((identifier) => identifier !== '');
}

/** The API names each refused identifier by its index (`user_identifiers[2]`): back to the identifier, with the reason. */
function refusedIdentifiers(error: unknown, sent: readonly string[]): Array<{ identifier: string; reason: string }> {
  if (!(error instanceof ApiError)) return [];
  return error.details.flatMap((detail) => {
    const index = /^user_identifiers\[(\d+)\]$/.exec(detail.field)?.[1];
    const identifier = index === undefined ? undefined : sent[Number(index)];
    return identifier === undefined ? [] : [{ identifier, reason: detail.reason }];
  });
}

/**
 * Binds several affiliates at once. The API binds all or none: when it refuses, each refused
 * identifier is listed with its reason (bound to another master, a master itself, no affiliate).
 */
export function BindSubAffiliates({ agencyId }: { agencyId: string }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [identifierType, setIdentifierType] = useState<string>(IDENTIFIER_TYPES[0]);
  const [sent, setSent] = useState<string[]>([]);
  const bind = useMutation({
    mutationFn: (identifiers: string[]) =>
      api('post', '/api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates', {
        path: { projectId, agencyId },
        body: { user_identifiers: identifiers, user_identifier_type: identifierType },
      }),
    onSuccess: async () => {
      setText('');
      await refreshMaster(queryClient, projectId, agencyId);
    },
  });
  const refused = refusedIdentifiers(bind.error, sent);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const identifiers = parseIdentifiers(text);
    if (identifiers.length === 0) return;
    setSent(identifiers);
    bind.mutate(identifiers);
  };
  const newlyBound = bind.data?.results.filter((result) => result.bound).length ?? 0;
  const alreadyHere = (bind.data?.results.length ?? 0) - newlyBound;
  return (
    <section className="panel" aria-labelledby="bind-title">
      <h2 id="bind-title">Bind sub-affiliates</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <label htmlFor="bind-identifiers">Affiliate identifiers (one per line, or separated by commas)</label>
        <textarea
          id="bind-identifiers"
          rows={4}
          value={text}
          onChange={(event) => {
            // The refusal was about the list as it was: it goes once the list is changed.
            if (bind.isError) bind.reset();
            setText(event.target.value);
          }}
          aria-invalid={refused.length > 0}
          aria-describedby="bind-help"
        />
        <p id="bind-help" className="help">
          An affiliate has at most one master, and a master is never a sub-affiliate. All are bound, or none.
        </p>
        <label htmlFor="bind-type">Identifier type</label>
        <select id="bind-type" value={identifierType} onChange={(event) => setIdentifierType(event.target.value)}>
          {IDENTIFIER_TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
        <div>
          <button type="submit" disabled={bind.isPending || parseIdentifiers(text).length === 0}>
            {bind.isPending ? 'Binding…' : 'Bind sub-affiliates'}
          </button>
        </div>
      </form>
      <p role="status" className="help">
        {bind.isSuccess ? `Bound ${newlyBound}${alreadyHere ? `; ${alreadyHere} already bound to this master` : ''}.` : ''}
      </p>
      {bind.isError ? <ErrorMessage error={bind.error} title="Nothing was bound" showDetails={refused.length === 0} /> : null}
      {refused.length > 0 ? (
        <ul className="refused" aria-label="Refused affiliates">
          {refused.map(({ identifier, reason }) => (
            <li key={identifier}>
              <span className="identifier">{identifier}</span>: {fieldMessage(reason)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
