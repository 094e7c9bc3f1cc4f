import { MAX_AUDIENCE_FILTER_IDS } from '../../rules/contract-limits';
import { type FieldViolation, invalidFields } from '../../rules/errors';
import { isUuid } from '../../rules/ids';

/**
 * The affiliate list's audience filters (`audience`: one segment; `audience_ids`: any of several),
 * checked: segment ids are UUIDs (a filter that could match nothing by its shape is a mistake to
 * report, not an empty page), at most MAX_AUDIENCE_FILTER_IDS of them.
 */
export function checkAudienceFilters(
  audienceId: string | undefined,
  anyAudienceIds: readonly string[] | undefined,
): {
  audienceId?: string;
  anyAudienceIds?: string[];
} {
  const violations: FieldViolation[] = [];
  if (audienceId !== undefined && !isUuid(audienceId)) violations.push({ field: 'audience', reason: 'must be an audience segment id (a UUID)' });
  const ids = [...new Set(anyAudienceIds ?? [])];
  if (ids.length > MAX_AUDIENCE_FILTER_IDS) violations.push({ field: 'audience_ids', reason: `at most ${MAX_AUDIENCE_FILTER_IDS} segment ids` });
  ids.forEach((id, index) => {
    if (!isUuid(id)) violations.push({ field: `audience_ids[${index}]`, reason: 'must be an audience segment id (a UUID)' });
  });
  if (violations.length > 0) throw invalidFields(violations);
  return {
    ...(audienceId !== undefined && { audienceId: audienceId.toLowerCase() }),
    ...(ids.length > 0 && { anyAudienceIds: ids.map((id) => id.toLowerCase()) }),
  };
}
