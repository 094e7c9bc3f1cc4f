import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { useAffiliateRefresh } from './refresh';

/** Gives the affiliate another referral code; the API says at the field when the code is malformed, taken, or one too many. */
export function AddCode({ identifier, identifierType }: { identifier: string; identifierType: string }) {
  const { projectId, api } = useProject();
  const refresh = useAffiliateRefresh(identifier, identifierType);
  const [code, setCode] = useState('');
  const [added, setAdded] = useState('');
  const add = useMutation({
    mutationFn: (text: string) =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/codes', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
        body: { code: text },
      }),
    onSuccess: async (_affiliate, text) => {
      setCode('');
      setAdded(`The code ${text} was added; it refers from now on.`);
      await refresh();
    },
  });
  const errors = fieldErrors(add.error);
  // A refusal that names no field (the code taken, too many codes) is the code's problem too.
  const codeError = errors.code ?? (add.error instanceof Error && Object.keys(errors).length === 0 ? add.error.message : undefined);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded('');
    add.mutate(code.trim());
  };
  return (
    <>
      <form className="inline-fields" onSubmit={submit} noValidate aria-label="Add a code">
        <div>
          <TextField
            id="add-code"
            label="New code (3 to 32 of A-Z, 0-9, _ and -)"
            value={code}
            onChange={(value) => {
              setAdded('');
              setCode(value);
            }}
            error={codeError}
          />
        </div>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add code'}
        </button>
      </form>
      {add.isError && !codeError ? <ErrorMessage error={add.error} title="The code was not added" showDetails={false} /> : null}
      <p role="status" aria-live="polite" className={added ? 'state' : undefined}>
        {added}
      </p>
    </>
  );
}
