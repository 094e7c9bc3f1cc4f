import type { ApiBody, ApiResult } from '../../api/client';

type Action = ApiBody<'/api/v1/projects/{projectId}/applications/bulk', 'post'>['action'];
type Result = Pick<ApiResult<'/api/v1/projects/{projectId}/applications/bulk', 'post'>['results'][number], 'application_id' | 'ok' | 'error'>;

/** What one decision did, said once, for the tab and action it was made in. */
export interface DecisionOutcome {
  /** "Approved Grace Hopper and Hedy Lamarr.", or empty when none went through. */
  sentence: string;
  /** Each application the API would not decide, by name, with its reason. */
  refused: Array<{ id: string; name: string; reason: string }>;
}

const NAMES_SHOWN = 5;
const LIST = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });

function names(list: string[]): string {
  if (list.length <= NAMES_SHOWN) return LIST.format(list);
  return LIST.format([...list.slice(0, NAMES_SHOWN), `${list.length - NAMES_SHOWN} more`]);
}

/** The bulk answer in a sentence: "Approved alice.eth.", "Rejected A, B and C.", "Put A on hold." */
export function decisionOutcome(action: Action, results: readonly Result[], nameOf: (id: string) => string): DecisionOutcome {
  const decided = results.filter((result) => result.ok).map((result) => nameOf(result.application_id));
  const refused = results
    .filter((result) => !result.ok)
    .map((result) => ({ id: result.application_id, name: nameOf(result.application_id), reason: result.error?.message ?? 'not decided' }));
  const sentence =
    decided.length === 0
      ? ''
      : action === 'approve'
        ? `Approved ${names(decided)}.`
        : action === 'reject'
          ? `Rejected ${names(decided)}.`
          : `Put ${names(decided)} on hold.`;
  return { sentence, refused };
}
