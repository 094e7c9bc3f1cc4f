import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { renderSqlSnapshots } from '../../../scripts/sql-snapshots/render';

/**
 * The checked-in SQL snapshots (services/<service>/repositories/queries.sql) are the SQL the code
 * sends: a statement changed in code and not in its snapshot fails here, so the change shows in
 * review. `npm run sql:snapshots` writes them again. Pure: renders statements, connects to nothing.
 */
const ROOT = path.resolve(__dirname, '../../..');
let rendered: Record<string, string>;

beforeAll(async () => {
  rendered = await renderSqlSnapshots();
});

describe('the SQL snapshots', () => {
  it('are current (else: npm run sql:snapshots, and review the diff)', () => {
    for (const [file, text] of Object.entries(rendered)) {
      expect(existsSync(path.join(ROOT, file)) ? file : `${file} is missing`).toBe(file);
      expect(`${file}:\n${readFileSync(path.join(ROOT, file), 'utf8')}`).toBe(`${file}:\n${text}`);
    }
  });

  it('leave no snapshot behind for a service that no longer writes SQL by hand', () => {
    const present = [
      ...readdirSync(path.join(ROOT, 'services')).map((service) => `services/${service}/repositories/queries.sql`),
      'services/platform/outbox/queries.sql',
    ].filter((file) => existsSync(path.join(ROOT, file)));
    expect(present.sort()).toEqual(Object.keys(rendered).sort());
  });

  it('show every fixed prepared statement and every shape of the affiliate list', () => {
    const agency = rendered['services/agency/repositories/queries.sql']!;
    expect(agency).toContain('-- prepared statement agency_affiliate_list_rows');
    expect(agency).toContain('-- prepared statement agency_resolve_attribution');
    expect(agency.match(/^-- affiliate list page: /gm)?.length).toBe(15);
    expect(rendered['services/tax/repositories/queries.sql']).toContain('-- prepared statement tax_current_statuses');
    expect(agency).toContain('-- metrics: a batch of conversion facts (recordConversions)');
    expect(agency.match(/^-- metrics: the rebuild \(recomputeProjectMetrics\) \(\d+ of \d+\)/gm)?.length).toBeGreaterThan(5);
    expect(rendered['services/claim/repositories/queries.sql']).toMatch(/-- ledger: a batch paid[^\n]*\n[^]*WITH planned AS[^]*held AS \(/);
    const relay = rendered['services/platform/outbox/queries.sql']!;
    for (const statement of [
      'INSERT INTO outbox_pending (seq) SELECT seq FROM outbox',
      'FROM outbox_pending ORDER BY seq LIMIT',
      'DELETE FROM outbox_pending WHERE seq = ANY',
      'DELETE FROM outbox_relays WHERE ctid',
    ])
      expect(relay).toContain(statement);
  });
});
