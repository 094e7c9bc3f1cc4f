import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { renderSqlSnapshots } from '../../../scripts/sql-snapshots/render';

/**
 * The checked-in SQL snapshots (services/<service>/repositories/queries.sql) are the SQL the code
 * sends: a statement changed in code and not in its snapshot fails here, so the change shows in
 * review. `npm run sql:snapshots` writes them again. Pure: renders statements, connects to nothing.
 */
const ROOT = path.resolve(__dirname, '../../..');
const rendered = renderSqlSnapshots();

describe('the SQL snapshots', () => {
  it.each(Object.keys(rendered))('%s is current (else: npm run sql:snapshots, and review the diff)', (file) => {
    expect(existsSync(path.join(ROOT, file))).toBe(true);
    expect(readFileSync(path.join(ROOT, file), 'utf8')).toBe(rendered[file]);
  });

  it('leave no snapshot behind for a service that no longer writes SQL by hand', () => {
    const present = readdirSync(path.join(ROOT, 'services'))
      .map((service) => `services/${service}/repositories/queries.sql`)
      .filter((file) => existsSync(path.join(ROOT, file)));
    expect(present.sort()).toEqual(Object.keys(rendered).sort());
  });

  it('show every fixed prepared statement and every shape of the affiliate list', () => {
    const agency = rendered['services/agency/repositories/queries.sql']!;
    expect(agency).toContain('-- prepared statement agency_affiliate_list_rows');
    expect(agency).toContain('-- prepared statement agency_resolve_attribution');
    expect(agency.match(/^-- affiliate list page: /gm)?.length).toBe(14);
    expect(rendered['services/tax/repositories/queries.sql']).toContain('-- prepared statement tax_current_statuses');
  });
});
