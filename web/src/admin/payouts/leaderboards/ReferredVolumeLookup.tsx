import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { FieldError } from '../../../ui/field-errors';
import { formatUsd } from '../../../ui/format';
import { IDENTIFIER_TYPES } from '../../../ui/identifier-types';
import { numeric, ScrollTable } from '../../../ui/ScrollTable';
import { ErrorMessage, Loading } from '../../../ui/states';
import { useProject } from '../../session';
import { MAX_TYPED_USERS, typedUsers } from './boards';

/**
 * The referred volume of the users typed (the API's getReferredVolume names up to 100; it ranks
 * nobody): the users live in the URL, so the answer survives a reload and can be shared.
 */
export function ReferredVolumeLookup({
  users,
  identifierType,
  onLookUp,
}: {
  users: string[];
  identifierType: string;
  onLookUp(users: string[], identifierType: string): void;
}) {
  const { projectId, api } = useProject();
  const [text, setText] = useState(users.join('\n'));
  const [type, setType] = useState(identifierType);
  const [problem, setProblem] = useState<string>();
  const volumes = useQuery({
    queryKey: ['leaderboard', 'referred-volume', projectId, identifierType, users],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/payouts/leaderboard/referred-volume', {
        query: { user_identifiers: users.join(','), identifier_type: identifierType },
        signal,
      }),
    enabled: users.length > 0,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const typed = typedUsers(text);
    if (typed.length === 0) return setProblem('Enter at least one user.');
    if (typed.length > MAX_TYPED_USERS) return setProblem(`Enter at most ${MAX_TYPED_USERS} users at a time; you entered ${typed.length}.`);
    setProblem(undefined);
    onLookUp(typed, type);
  };
  return (
    <>
      <form className="inline-fields" onSubmit={submit} noValidate>
        <div>
          <label htmlFor="referred-volume-users">Users (separated by commas, spaces or lines)</label>
          <textarea
            id="referred-volume-users"
            rows={3}
            cols={44}
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-invalid={Boolean(problem)}
            aria-describedby="referred-volume-users-error"
          />
          <FieldError id="referred-volume-users-error" message={problem} />
        </div>
        <div>
          <label htmlFor="referred-volume-type">Identifier type</label>
          <select id="referred-volume-type" value={type} onChange={(event) => setType(event.target.value)}>
            {IDENTIFIER_TYPES.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Look up</button>
      </form>
      {users.length === 0 ? <p className="help">Name the users whose referred volume you want to see.</p> : null}
      {volumes.isFetching && !volumes.data ? <Loading label="Loading the referred volumes…" /> : null}
      {volumes.isError ? (
        <ErrorMessage error={volumes.error} title="The referred volumes did not load" onRetry={() => void volumes.refetch()} />
      ) : null}
      {volumes.data ? (
        <ScrollTable labelledBy="leaderboard-title" caption="The referred volume of each user named" columns={['User', numeric('Referred volume')]}>
          {volumes.data.referred_volumes.map((entry) => (
            <tr key={entry.user_identifier}>
              <td className="identifier">{entry.user_identifier}</td>
              <td className="number">{formatUsd(String(entry.referred_volume))}</td>
            </tr>
          ))}
        </ScrollTable>
      ) : null}
    </>
  );
}
