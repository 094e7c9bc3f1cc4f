import type { AffiliateFilters } from './filters';

type ChipFilter = 'q' | 'status' | 'region' | 'audience' | 'audience_ids' | 'conversions';

const CHIP_LABELS: Record<ChipFilter, string> = {
  q: 'Starts with',
  status: 'Status',
  region: 'Region',
  audience: 'Member of',
  audience_ids: 'Member of any of',
  conversions: 'Converted with',
};

/** The filters applied to the list, each a button that removes it (sorting is no filter: it narrows nothing). */
export function FilterChips({
  filters,
  audiences,
  onChange,
}: {
  filters: AffiliateFilters;
  audiences: readonly { id: string; name: string }[];
  onChange(next: AffiliateFilters): void;
}) {
  const audienceName = (id: string) => audiences.find((audience) => audience.id === id)?.name ?? id;
  const shown = (name: ChipFilter, value: string) =>
    name === 'audience' ? audienceName(value) : name === 'audience_ids' ? value.split(',').map(audienceName).join(', ') : value;
  const chips = (Object.keys(CHIP_LABELS) as ChipFilter[]).flatMap((name) => {
    const value = filters[name];
    return value ? [{ name, text: `${CHIP_LABELS[name]}: ${shown(name, value)}` }] : [];
  });
  if (chips.length === 0) return null;
  return (
    <ul className="filter-chips" aria-label="Active filters">
      {chips.map((chip) => (
        <li key={chip.name}>
          <button
            type="button"
            className="chip"
            aria-label={`Remove filter ${chip.text}`}
            onClick={() => onChange({ ...filters, [chip.name]: undefined })}
          >
            {chip.text} <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
