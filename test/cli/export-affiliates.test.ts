import { existsSync, readFileSync } from 'node:fs';
import { AFFILIATE_COLUMNS } from '../../cli/affiliates/affiliate-csv';
import { csvRecords } from '../../cli/files/csv';
import { createSegment, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { eventually } from '../helpers/processes';
import type { TestStack } from '../helpers/stack';
import { CLI_TEST_TIMEOUT_MS, runCli, scratchFolder } from './run-cli';

/** A CSV text as rows of fields (the header first). */
async function parseCsv(text: string): Promise<string[][]> {
  async function* lines() {
    let number = 0;
    for (const line of text.replace(/\r\n$/, '').split('\r\n')) yield { number: ++number, text: line };
  }
  const rows: string[][] = [];
  for await (const record of csvRecords(lines())) {
    if (record.problem !== undefined) throw new Error(`line ${record.line}: ${record.problem}`);
    rows.push(record.fields);
  }
  return rows;
}

/**
 * `referral export-affiliates` run as a process against the real stack: with the list's filters and
 * sort, over more than one page, the CSV holds exactly the rows the API lists (money as its exact
 * strings, text quoted), and the exit codes of a wrong key or a missing project.
 */
describe('referral export-affiliates', () => {
  let stack: TestStack;
  let project: TestProject;
  const files = scratchFolder();
  const tricky = 'Smith, "Jo" & Co';
  let rich: { identifier: string; code: string };
  let segmentId: string;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    const create = async (index: number, region: string, name = `Affiliate ${index}`) => {
      const identifier = randomEvmAddress();
      const code = `code${index}`;
      const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        key: project.keys.admin,
        body: { identifier, identifier_type: 'evm_address', name, region, code },
      });
      if (response.status !== 201) throw new Error(`affiliate: ${response.status} ${response.text}`);
      return { identifier, code };
    };
    // 24 in DE, 6 elsewhere; 4 of DE suspended. Sequential: the agency's deadlines hold on a loaded machine.
    const german = [];
    for (let i = 0; i < 24; i += 1) german.push(await create(i, 'DE', i === 7 ? tricky : undefined));
    for (let i = 24; i < 30; i += 1) await create(i, 'US');
    for (const affiliate of german.slice(16, 20)) {
      await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}/suspend`, {
        key: project.keys.admin,
        body: { reason: 'test' },
      });
    }
    // Money beyond a double's exact range, through a conversion attributed by code.
    rich = german[3]!;
    const sent = await stack.api.post('/api/v1/conversions', {
      key: project.keys.service,
      body: {
        id: 'big-order',
        name: 'trade',
        user: { identifier: randomEvmAddress(), identifier_type: 'evm_address' },
        volume_usd: '12345678901234567.89',
        referral_code: rich.code,
      },
    });
    expect(sent.status).toBe(202);
    // Members of one audience: five of the DE affiliates.
    segmentId = (await createSegment(stack, project)).id;
    const added = await stack.api.post(`/v1/audience-segments/${segmentId}/entries/batch?wait=true`, {
      key: project.keys.service,
      body: { entries: german.slice(10, 15).map((affiliate) => ({ identifier: affiliate.identifier, identifier_type: 'evm_address' })) },
    });
    expect(added.status).toBe(200);
    // Metrics and memberships reach the list through events: wait until both show.
    await eventually(
      'the events applied',
      async () => {
        const members = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?audience=${segmentId}`, { key: project.keys.readOnly });
        const top = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?sort_by=volume_usd&page_size=1`, { key: project.keys.readOnly });
        return members.body.total_results === 5 && top.body.results[0]?.volume_usd === '12345678901234567.89';
      },
      30_000,
    );
  }, 180_000);
  afterAll(async () => {
    files.remove();
    await stack.stop();
  });

  const env = (key = project.keys.readOnly) => ({ REFERRAL_BASE_URL: stack.baseUrl, REFERRAL_API_KEY: key, REFERRAL_PROJECT_ID: project.id });
  /** Every page of the API's list with these filters, as CSV rows would hold them. */
  const listed = async (query: string) => {
    const rows: string[][] = [];
    for (let page = 1; ; page += 1) {
      const { body } = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?${query}&page=${page}&page_size=100`, {
        key: project.keys.readOnly,
      });
      for (const affiliate of body.results)
        rows.push(
          AFFILIATE_COLUMNS.map(([, value]) => {
            const v = value(affiliate);
            return v === null ? '' : String(v);
          }),
        );
      if (page * 100 >= body.total_results) return rows;
    }
  };

  it(
    'writes the rows the API lists with the same filters and sort, across pages of 7, money exact and text quoted',
    async () => {
      const out = `${files.folder}/de.csv`;
      // Pages of 7: 20 rows over three pages.
      const args = ['--status', 'active', '--region', 'de', '--sort-by', 'volume_usd', '--order', 'desc', '--page-size', '7'];
      const result = await runCli(['export-affiliates', ...args, '--out', out], env());
      expect(result).toMatchObject({ code: 0, stdout: `Exported 20 affiliates to ${out}\n` });
      expect(result.stderr.match(/^progress: /gm)).toHaveLength(3);
      expect(existsSync(`${out}.partial`)).toBe(false);
      const text = readFileSync(out, 'utf8');
      const [header, ...rows] = await parseCsv(text);
      expect(header).toEqual(AFFILIATE_COLUMNS.map(([name]) => name));
      expect(rows).toHaveLength(20);
      expect(rows).toEqual(await listed('status=active&region=de&sort_by=volume_usd&order=desc'));

      const column = (name: string) => header!.indexOf(name);
      expect(rows[0]![column('identifier')]).toBe(rich.identifier);
      expect(rows[0]![column('volume_usd')]).toBe('12345678901234567.89');
      expect(rows[0]![column('conversions')]).toBe('1');
      expect(rows.every((row) => row[column('region')] === 'DE' && row[column('status')] === 'active')).toBe(true);
      // RFC 4180: the field in quotes, its quotes doubled.
      expect(text).toContain(',"Smith, ""Jo"" & Co",');
      expect(rows.some((row) => row[column('name')] === tricky)).toBe(true);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'filters by audience and prefix to stdout; the summary goes to stderr',
    async () => {
      const result = await runCli(
        ['export-affiliates', '--audience', segmentId, '--q', 'affiliate 1', '--sort-by', 'joined_at', '--order', 'asc'],
        env(),
      );
      expect(result.code).toBe(0);
      const [, ...rows] = await parseCsv(result.stdout);
      const expected = await listed(`audience=${segmentId}&q=${encodeURIComponent('affiliate 1')}&sort_by=joined_at&order=asc`);
      expect(expected).toHaveLength(5); // Affiliate 10 to 14
      expect(rows).toEqual(expected);
      expect(result.stderr).toContain('Exported 5 affiliates\n');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 3 with a key of the wrong role, 2 without a project or with a bad filter, and leaves no file',
    async () => {
      const out = `${files.folder}/refused.csv`;
      const wrongRole = await runCli(['export-affiliates', '--out', out], env(project.keys.service));
      expect(wrongRole.code).toBe(3);
      expect(wrongRole.stderr).toContain(`GET /api/v1/projects/${project.id}/affiliates: `);
      expect(wrongRole.stderr).toContain('HTTP 403');
      expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);

      const noProject = await runCli(['export-affiliates'], { REFERRAL_BASE_URL: stack.baseUrl, REFERRAL_API_KEY: project.keys.readOnly });
      expect(noProject).toMatchObject({ code: 2, stderr: 'referral: no project: set REFERRAL_PROJECT_ID (or pass --project <id>)\n' });
      const badStatus = await runCli(['export-affiliates', '--status', 'gone'], env());
      expect(badStatus.code).toBe(2);
      expect(badStatus.stderr).toContain("argument 'gone' is invalid. Allowed choices are active, suspended, flagged.");
      const badRegion = await runCli(['export-affiliates', '--region', 'Germany!', '--out', out], env());
      expect(badRegion.code).toBe(2);
      expect(badRegion.stderr).toContain('HTTP 400');
      expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
