import { readFileSync } from 'node:fs';
import { README_FILE, readmeSdkTable, renderSdkTable, TABLE_END, TABLE_START, withSdkTable } from '../../../scripts/sdk-table/render';

/**
 * The rendering of the README's SDK table (scripts/sdk-table/render.ts), which
 * test/sdk/sdk-surface.test.ts compares and `npm run sdk:table` writes. Pure: no stack.
 */
const results = {
  sdkVersion: '7.41.0',
  methods: [
    { method: 'init', requests: [], works: 'yes' },
    { method: 'getUserPointsByConversion', requests: ['GET /api/v1/payouts?type=point'], works: 'yes' },
    { method: 'getQualifiedUserBonus', requests: ['GET /api/v1/affiliate-portal/qualified-user-bonus'], works: 'no: 404 NOT_OFFERED' },
  ],
};

describe('the README’s SDK table', () => {
  it('counts what works and puts two methods to a row, the first half of the SDK’s order on the left', () => {
    const lines = renderSdkTable(results).split('\n');
    expect(lines[0]).toContain('whether it works here, 2 of 3.');
    expect(lines.slice(2)).toEqual([
      '| Method | HTTP path | Works | Method | HTTP path | Works |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `init` | none (it sends no request) | yes | `getQualifiedUserBonus` | `GET /api/v1/affiliate-portal/qualified-user-bonus` | no: 404 NOT_OFFERED |',
      '| `getUserPointsByConversion` | `GET /api/v1/payouts?type=point` | yes |  |  |  |',
    ]);
  });

  it('replaces only what lies between the markers, and reads back what it wrote', () => {
    const readme = `# Title\n\nBefore.\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nAfter.\n`;
    const table = renderSdkTable(results);
    const written = withSdkTable(readme, table);
    expect(written).toBe(`# Title\n\nBefore.\n\n${TABLE_START}\n${table}\n${TABLE_END}\n\nAfter.\n`);
    expect(readmeSdkTable(written)).toBe(table);
    expect(withSdkTable(written, table)).toBe(written);
  });

  it('refuses a README without the markers, and the repository’s README has them', () => {
    expect(() => readmeSdkTable('# no table here\n')).toThrow(/sdk-table:start/);
    expect(() => withSdkTable(`${TABLE_END}\n${TABLE_START}\n`, 'x')).toThrow(/sdk-table:start/);
    expect(readmeSdkTable(readFileSync(README_FILE, 'utf8'))).toMatch(/^\*\*The `@fuul\/sdk`\*\*/);
  });
});
