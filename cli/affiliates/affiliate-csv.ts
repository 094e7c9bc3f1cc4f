import { AFFILIATE_COLUMNS as EXPORT_COLUMNS } from '../../services/rules/affiliate-csv';
import type { CsvField } from '../../services/rules/csv-line';
import type { ListedAffiliate } from './affiliate-page';

/** The export's columns (services/rules/affiliate-csv.ts, which the admin dashboard's export writes too), over the list as the CLI reads it. */
export const AFFILIATE_COLUMNS: ReadonlyArray<[string, (affiliate: ListedAffiliate) => CsvField]> = EXPORT_COLUMNS;
