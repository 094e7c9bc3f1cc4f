import type { UseQueryResult } from '@tanstack/react-query';
import { Fragment, type ReactNode, useState } from 'react';
import { LoadError, Loading } from './states';

/** What a settings page hands its form: the stored settings, and what the form says when it saves or is edited. */
export interface SettingsFormProps<T> {
  settings: T;
  onSaved(): void;
  onEdit(): void;
}

/**
 * A page of settings: its title, what the API stored (loading, then its error or a form of it), and
 * "Saved." after a save until the next edit. Each save starts a new form from what the API stored.
 */
export function SettingsPage<T>({
  id,
  title,
  loadingLabel,
  settings,
  form,
}: {
  /** The title's element id. */
  id: string;
  title: string;
  loadingLabel: string;
  settings: UseQueryResult<T>;
  form(props: SettingsFormProps<T>): ReactNode;
}) {
  const [saved, setSaved] = useState(false);
  /** Saves so far: each starts a new form from what the API stored. */
  const [version, setVersion] = useState(0);
  return (
    <section aria-labelledby={id}>
      <h1 id={id}>{title}</h1>
      {settings.isPending ? <Loading label={loadingLabel} /> : null}
      {settings.isError ? <LoadError query={settings} /> : null}
      {settings.data ? (
        <Fragment key={version}>
          {form({
            settings: settings.data,
            onSaved: () => {
              setVersion((count) => count + 1);
              setSaved(true);
            },
            onEdit: () => setSaved(false),
          })}
        </Fragment>
      ) : null}
      <p role="status" aria-live="polite" className={saved ? 'state' : undefined}>
        {saved ? 'Saved.' : ''}
      </p>
    </section>
  );
}
