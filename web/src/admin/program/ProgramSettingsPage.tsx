import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiBody, ApiResult } from '../../api/client';
import { useFieldErrors } from '../../ui/field-errors';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage } from '../../ui/states';
import { SettingsPage, type SettingsFormProps } from '../../ui/SettingsPage';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { previewLink } from './referral-link';
import { ChangesFieldset } from '../key-role';

type ProgramSettings = ApiResult<'/api/v1/projects/{projectId}/program-settings', 'get'>;
type Changes = ApiBody<'/api/v1/projects/{projectId}/program-settings', 'patch'>;

/** The code the preview shows the link of. */
const EXAMPLE_CODE = 'EXAMPLE';
const settingsKey = (projectId: string) => ['program-settings', projectId];

/**
 * The program's referral link: its URL and link template, with a live preview of a code's link as
 * the affiliate portal will copy it. The API checks both and names what is wrong at its field.
 */
export function ProgramSettingsPage() {
  const { projectId, api } = useProject();
  const settings = useQuery({
    queryKey: settingsKey(projectId),
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/program-settings', { path: { projectId }, signal }),
  });
  return (
    <SettingsPage
      id="program-title"
      title="Program"
      loadingLabel="Loading the program settings…"
      settings={settings}
      form={(props) => <LinkForm {...props} />}
    />
  );
}

function LinkForm({ settings, onSaved, onEdit }: SettingsFormProps<ProgramSettings>) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [programUrl, setProgramUrl] = useState(settings.program_url ?? '');
  const [template, setTemplate] = useState(settings.link_template);
  const [windowDays, setWindowDays] = useState(String(settings.attribution_window_days));
  const [model, setModel] = useState(settings.attribution_model);
  const save = useMutation({
    mutationFn: (body: Changes) => api('patch', '/api/v1/projects/{projectId}/program-settings', { path: { projectId }, body }),
    onSuccess: (next) => {
      queryClient.setQueryData(settingsKey(projectId), next);
      onSaved();
    },
  });
  const changes: Changes = {};
  if (programUrl.trim() !== (settings.program_url ?? '')) changes.program_url = programUrl.trim() === '' ? null : programUrl.trim();
  if (template.trim() !== settings.link_template) changes.link_template = template.trim() === settings.default_link_template ? null : template.trim();
  // A window that is no whole number is not sent (the API would refuse it); the range is the API's to check.
  const windowIsNumber = /^\d{1,4}$/.test(windowDays.trim());
  if (windowIsNumber && Number(windowDays.trim()) !== settings.attribution_window_days) changes.attribution_window_days = Number(windowDays.trim());
  if (model !== settings.attribution_model) changes.attribution_model = model;
  const { errors, error, edited } = useFieldErrors(save.error);
  const windowError = windowIsNumber ? errors.attribution_window_days : 'Enter a whole number of days, from 1 to 365.';
  const preview = previewLink(programUrl.trim(), template.trim(), EXAMPLE_CODE);
  /** An edit of a field: "Saved." and the field's refusal go. */
  const edit = (field: keyof Changes, set: (value: string) => void) => (value: string) => {
    onEdit();
    edited(field);
    set(value);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onEdit();
    save.mutate(changes);
  };
  return (
    <ChangesFieldset>
      <form className="stack" onSubmit={submit} noValidate aria-labelledby="program-title">
        <p className="subtle">{settings.updated_at ? `Last changed ${formatDateTime(settings.updated_at)}.` : 'The defaults: never changed.'}</p>
        <fieldset className="stack">
          <legend>Referral link</legend>
          <p className="help">
            Affiliates copy one link per code from their portal. Until the program has an address, the portal tells them there is no link yet.
          </p>
          <TextField
            id="program-url"
            label="Program URL (where a referred person lands)"
            type="url"
            value={programUrl}
            onChange={edit('program_url', setProgramUrl)}
            error={errors.program_url}
          />
          <TextField
            id="link-template"
            label="Link template"
            value={template}
            onChange={edit('link_template', setTemplate)}
            error={errors.link_template}
          />
          <p className="help" id="link-template-help">
            <code>{'{code}'}</code> is replaced by the affiliate’s code and <code>{'{program_url}'}</code> by the program URL. The default,{' '}
            <code>{settings.default_link_template}</code>, adds the <code>af</code> parameter the tracking reads.
          </p>
          <div>
            <button
              type="button"
              onClick={() => edit('link_template', setTemplate)(settings.default_link_template)}
              disabled={template === settings.default_link_template}
            >
              Use the default template
            </button>
          </div>
          <div className="state" aria-live="polite">
            <strong>Preview for the code {EXAMPLE_CODE}: </strong>
            {preview ? (
              <code className="identifier" data-testid="link-preview">
                {preview}
              </code>
            ) : (
              <span data-testid="link-preview">no link yet: enter the program URL.</span>
            )}
          </div>
        </fieldset>
        <fieldset className="stack">
          <legend>Attribution</legend>
          <p className="help">
            A visitor who connects a wallet is referred by the code of a click of the same browser at most this many days before; of several clicks,
            the first or the last.
          </p>
          <TextField
            id="attribution-window"
            label="Attribution window (days, 1 to 365)"
            inputMode="numeric"
            value={windowDays}
            onChange={edit('attribution_window_days', setWindowDays)}
            error={windowError}
          />
          <label htmlFor="attribution-model">Click that refers</label>
          <select
            id="attribution-model"
            value={model}
            onChange={(event) => edit('attribution_model', (value) => setModel(value as typeof model))(event.target.value)}
          >
            <option value="first_click">The first click in the window</option>
            <option value="last_click">The last click in the window</option>
          </select>
        </fieldset>
        {save.isError && error ? <ErrorMessage error={error} showDetails={false} title="Not saved" /> : null}
        <div>
          <button type="submit" disabled={save.isPending || !windowIsNumber || Object.keys(changes).length === 0}>
            {save.isPending ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>
    </ChangesFieldset>
  );
}
