import { Link } from 'react-router-dom';
import { shortIdentifier } from '../../ui/format';

/** Where one affiliate's page is, under the admin app. */
export function affiliatePath(identifierType: string, identifier: string): string {
  return `/admin/affiliates/${encodeURIComponent(identifierType)}/${encodeURIComponent(identifier)}`;
}

/**
 * A person linked to its affiliate page: its name when the API gives one, else its identifier,
 * shortened for a table's cell unless `whole` (a detail with room for it); the full one is always in the title.
 */
export function AffiliateLink({
  identifier,
  identifierType,
  name,
  whole = false,
}: {
  identifier: string;
  identifierType: string;
  name?: string | null;
  whole?: boolean;
}) {
  return (
    <Link to={affiliatePath(identifierType, identifier)} title={identifier} className={name ? undefined : 'identifier'}>
      {name || (whole ? identifier : shortIdentifier(identifier))}
    </Link>
  );
}
