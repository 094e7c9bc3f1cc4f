import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage } from '../../ui/states';
import { SettingsPage, type SettingsFormProps } from '../../ui/SettingsPage';
import { useFieldErrors } from '../../ui/field-errors';
import { Field } from '../../portal/tax/TaxWizard';
import { useProject } from '../session';
import { settingsChanges, settingsFields, settingsValues, type TaxSettings, type TaxSettingsChanges } from './settings-form';
import { taxKeys } from './tax-records';

/** The project's tax settings: read, then changed field by field; the API's problems show next to each input. */
export function TaxSettingsPage() {
  const { projectId, api } = useProject();
  const settings = useQuery({
    queryKey: taxKeys.settings(projectId),
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/tax-settings', { path: { projectId }, signal }),
  });
  return (
    <SettingsPage
      id="tax-settings-title"
      title="Tax settings"
      loadingLabel="Loading the tax settings…"
      settings={settings}
      form={(props) => <SettingsForm {...props} />}
    />
  );
}

function SettingsForm({ settings, onSaved, onEdit }: SettingsFormProps<TaxSettings>) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [initial] = useState(() => settingsValues(settings));
  const [values, setValues] = useState(initial);
  const save = useMutation({
    mutationFn: (body: TaxSettingsChanges) => api('patch', '/api/v1/projects/{projectId}/tax-settings', { path: { projectId }, body }),
    onSuccess: (next) => {
      onSaved();
      queryClient.setQueryData(taxKeys.settings(projectId), next);
    },
  });
  const changes = settingsChanges(initial, values);
  const { errors, error, edited } = useFieldErrors(save.error);
  const fields = settingsFields(settings);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    onEdit();
    save.mutate(changes);
  };
  const input = (spec: (typeof fields.program)[number]) => (
    <Field
      key={spec.name}
      spec={spec}
      value={values[spec.name] ?? ''}
      error={errors[spec.name]}
      onChange={(value) => {
        onEdit();
        edited(spec.name);
        setValues((current) => ({ ...current, [spec.name]: value }));
      }}
    />
  );
  return (
    <form className="stack" onSubmit={onSubmit} noValidate aria-labelledby="tax-settings-title">
      <p className="subtle">{settings.updated_at ? `Last changed ${formatDateTime(settings.updated_at)}.` : 'The defaults: never changed.'}</p>
      <fieldset className="stack">
        <legend>Program</legend>
        {fields.program.map(input)}
      </fieldset>
      <fieldset className="stack">
        <legend>Company (for tax reporting)</legend>
        {fields.company.map(input)}
      </fieldset>
      {save.isError && error ? <ErrorMessage error={error} showDetails={false} title="Not saved" /> : null}
      <div className="tax-form-actions">
        <button type="submit" disabled={save.isPending || Object.keys(changes).length === 0}>
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}
