import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { fieldErrors } from '../../ui/field-errors';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage } from '../../ui/states';
import { SettingsPage, type SettingsFormProps } from '../../ui/SettingsPage';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';

/** The project's claim address as the form shows it: none yet until it is first set (the API's 404). */
interface ClaimSettings {
  project_address: string;
  updated_at: string | null;
}

const claimSettingsKey = (projectId: string) => ['claim-settings', projectId];

/**
 * The project's account in the ClaimManager: its deposits are held under it and every voucher names
 * it. Until it is set no claim check can be closed; vouchers already signed keep the address they name.
 */
export function ClaimSettingsPage() {
  const { projectId, api } = useProject();
  const settings = useQuery({
    queryKey: claimSettingsKey(projectId),
    queryFn: async ({ signal }): Promise<ClaimSettings> => {
      try {
        return await api('get', '/api/v1/projects/{projectId}/claim-settings', { path: { projectId }, signal });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'CLAIM_SETTINGS_NOT_FOUND') return { project_address: '', updated_at: null };
        throw error;
      }
    },
  });
  return (
    <SettingsPage
      id="claim-settings-title"
      title="Claims"
      loadingLabel="Loading the claim settings…"
      settings={settings}
      form={(props) => <ClaimAddressForm {...props} />}
    />
  );
}

function ClaimAddressForm({ settings, onSaved, onEdit }: SettingsFormProps<ClaimSettings>) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [address, setAddress] = useState(settings.project_address);
  const save = useMutation({
    mutationFn: () => api('put', '/api/v1/projects/{projectId}/claim-settings', { path: { projectId }, body: { project_address: address.trim() } }),
    onSuccess: (next) => {
      queryClient.setQueryData(claimSettingsKey(projectId), next);
      onSaved();
    },
  });
  const errors = fieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onEdit();
    save.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="claim-settings-title">
      <p className="subtle">
        {settings.updated_at
          ? `Last changed ${formatDateTime(settings.updated_at)}.`
          : 'Not set yet: no claim check of the project can be closed until it is.'}
      </p>
      <p className="help">
        The project’s account in the ClaimManager of each chain: its deposits are held under it and every voucher names it. Vouchers already signed
        keep the address they were signed with.
      </p>
      <TextField
        id="claim-project-address"
        label="Project address (0x and 40 hex digits)"
        value={address}
        onChange={(value) => {
          onEdit();
          setAddress(value);
        }}
        error={errors.project_address}
      />
      {save.isError ? <ErrorMessage error={save.error} showDetails={false} title="Not saved" /> : null}
      <div>
        <button type="submit" disabled={save.isPending || address.trim() === settings.project_address}>
          {save.isPending ? 'Saving…' : 'Save the address'}
        </button>
      </div>
    </form>
  );
}
