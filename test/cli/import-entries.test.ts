import { randomUUID } from 'node:crypto';
import { createSegment, evmAddress, mixedCase, useStackWithProject } from '../helpers/fixtures';
import { eventually, freePort } from '../helpers/processes';
import { CLI_TEST_TIMEOUT_MS, runCli, scratchFolder, startCli } from './run-cli';

/**
 * `referral import-entries` run as a process against the real stack: a CSV imported, then imported
 * again (nothing added, no new job), an import killed mid-run and run again (exact counts, one job
 * per batch), bad lines refused with their numbers before anything is sent, and the exit codes of
 * a wrong key, an unknown segment and an unreachable server.
 */
describe('referral import-entries', () => {
  const { stack, project } = useStackWithProject();
  const files = scratchFolder();
  afterAll(() => files.remove());

  const env = (key = project.keys.service) => ({ REFERRAL_BASE_URL: stack.baseUrl, REFERRAL_API_KEY: key });
  const csv = (rows: string[]) => ['identifier,identifier_type', ...rows].join('\n') + '\n';
  const segmentCount = async (segmentId: string) =>
    (await stack.api.get(`/api/v1/projects/${project.id}/audiences/${segmentId}`, { key: project.keys.admin })).body.entries_count as number;
  const jobsOf = async (segmentId: string) =>
    (await stack.db.query('SELECT count(*)::int AS n FROM audience.entry_batches WHERE segment_id = $1', [segmentId])).rows[0].n as number;
  const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);

  it(
    'imports a CSV with a summary of added and skipped; running it again adds nothing and creates no job',
    async () => {
      const segment = await createSegment(stack, project);
      const already = await stack.api.post(`/v1/audience-segments/${segment.id}/entries/batch?wait=true`, {
        key: project.keys.service,
        body: { entries: [{ identifier: evmAddress(1), identifier_type: 'evm_address' }] },
      });
      expect(already.status).toBe(200);
      // 1..250, plus user 2 again in other letter case and user 3 again: 250 users, one of them in the segment already.
      const rows = [
        ...Array.from({ length: 250 }, (_, i) => `${evmAddress(i + 1)},evm_address`),
        `${mixedCase(evmAddress(2))},evm_address`,
        `"${evmAddress(3)}",evm_address`,
      ];
      const file = files.file('users.csv', csv(rows));

      const first = await runCli(['import-entries', segment.id, file, '--batch-size', '100', '--json'], env());
      expect(first).toMatchObject({ code: 0 });
      expect(summaryOf(first.stdout)).toMatchObject({ segment_id: segment.id, rows: 252, batches: 3, added: 249, skipped: 3, failed_batches: [] });
      expect(await segmentCount(segment.id)).toBe(250);
      // Not a terminal: a plain progress line per batch on stderr.
      expect(first.stderr.match(/^progress: /gm)).toHaveLength(3);
      expect(first.stderr).toContain('progress: 252/252 rows  added 249, skipped 3');

      const jobs = await jobsOf(segment.id);
      expect(jobs).toBe(4); // the API call above, then one a batch
      const again = await runCli(['import-entries', segment.id, file, '--batch-size', '100'], env());
      expect(again.code).toBe(0);
      // The same keys: each batch is answered with its first job, so the counts are the file's, and nothing is added.
      expect(again.stdout).toContain(`Imported ${file} into segment ${segment.id}: 252 rows in 3 batches`);
      expect(again.stdout).toMatch(/added +249\n/);
      expect(again.stdout).toMatch(/skipped +3 /);
      expect(await segmentCount(segment.id)).toBe(250);
      expect(await jobsOf(segment.id)).toBe(jobs);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'resumes an import killed mid-run: every row exactly once, one job per batch',
    async () => {
      const segment = await createSegment(stack, project);
      const rows = Array.from({ length: 4_000 }, (_, i) => `${evmAddress(10_000 + i)},evm_address`);
      const file = files.file('big.csv', csv(rows));
      const args = ['import-entries', segment.id, file, '--batch-size', '100', '--json'];

      const killed = startCli(args, env());
      await eventually('three batches done', () => /progress: [3-9]\d\d\/4,000 rows/.test(killed.stderr()), 60_000);
      killed.child.kill('SIGKILL');
      expect(await killed.ended).toEqual({ code: null, signal: 'SIGKILL' });
      const partial = await segmentCount(segment.id);
      expect(partial).toBeGreaterThanOrEqual(300);
      expect(partial).toBeLessThan(4_000);

      const resumed = await runCli(args, env());
      expect(resumed.code).toBe(0);
      expect(summaryOf(resumed.stdout)).toMatchObject({ rows: 4_000, batches: 40, added: 4_000, skipped: 0, failed_batches: [] });
      expect(await segmentCount(segment.id)).toBe(4_000);
      // A batch in flight when the first run died was answered to the second from its job: 40 jobs, never 41.
      expect(await jobsOf(segment.id)).toBe(40);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a file with bad lines, naming each line, and sends nothing (exit 2)',
    async () => {
      const segment = await createSegment(stack, project);
      const file = files.file(
        'bad.csv',
        [
          'identifier,identifier_type,note',
          `${evmAddress(1)},evm_address,fine`,
          '0xnothex,evm_address,bad hex',
          `${evmAddress(2)},bitcoin_address,unknown type`,
          `"${evmAddress(3)}",evm_address,"quoted, with ""quotes"" and a comma"`,
          ',evm_address,no identifier',
          `${evmAddress(4)}"x,evm_address,stray quote`,
          `${evmAddress(5)},evm_address,"never closed`,
          `${evmAddress(6)},evm_address,swallowed by the open quote`,
        ].join('\n'),
      );
      const result = await runCli(['import-entries', segment.id, file], env());
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${file}: 5 bad lines, nothing was sent:`);
      expect(result.stderr).toContain('line 3: identifier is not a valid evm_address (0x followed by 40 hex digits)');
      expect(result.stderr).toContain('line 4: identifier_type must be one of evm_address');
      expect(result.stderr).toContain('line 6: identifier is empty');
      expect(result.stderr).toContain('line 7: a quote inside an unquoted field (column 43)');
      expect(result.stderr).toContain('line 8: a quoted field is never closed');
      expect(result.stderr).not.toMatch(/line [25]:/);
      expect(await jobsOf(segment.id)).toBe(0);

      const noHeader = await runCli(['import-entries', segment.id, files.file('no-header.csv', `${evmAddress(1)},evm_address\n`)], env());
      expect(noHeader.code).toBe(2);
      expect(noHeader.stderr).toContain('line 1: the header must name the columns identifier and identifier_type');
      const missing = await runCli(['import-entries', segment.id, `${files.folder}/nowhere.csv`], env());
      expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('nowhere.csv: ENOENT') });
      const notASegment = await runCli(['import-entries', 'gold', file], env());
      expect(notASegment).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('the segment must be an audience segment id (a UUID), not "gold"'),
      });
      expect(await jobsOf(segment.id)).toBe(0);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 3 on a wrong key or role, 2 on an unknown segment, 4 when the server cannot be reached',
    async () => {
      const segment = await createSegment(stack, project);
      const file = files.file('one.csv', csv([`${evmAddress(1)},evm_address`]));

      const wrongKey = await runCli(['import-entries', segment.id, file], env('not-a-key-of-this-platform-0123456789'));
      expect(wrongKey.code).toBe(3);
      expect(wrongKey.stderr).toMatch(
        /^referral: POST \/v1\/audience-segments\/[0-9a-f-]+\/entries\/batch: .* \(HTTP 401 UNAUTHENTICATED, request [^)]+\)\n$/,
      );
      expect(wrongKey.stderr).not.toContain('not-a-key-of-this-platform');
      const readOnly = await runCli(['import-entries', segment.id, file], env(project.keys.readOnly));
      expect(readOnly.code).toBe(3);
      expect(readOnly.stderr).toContain('HTTP 403');
      const noKey = await runCli(['import-entries', segment.id, file], { REFERRAL_BASE_URL: stack.baseUrl });
      expect(noKey).toMatchObject({ code: 2, stderr: 'referral: no API key: set REFERRAL_API_KEY (or pass --api-key)\n' });
      expect(await jobsOf(segment.id)).toBe(0);

      const unknown = await runCli(['import-entries', randomUUID(), file], env());
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('HTTP 404');

      const closedPort = await freePort();
      const unreachable = await runCli(['import-entries', segment.id, file, '--retries', '1', '--base-url', `http://127.0.0.1:${closedPort}`], env());
      expect(unreachable.code).toBe(4);
      expect(unreachable.stderr).toContain('the server could not be reached (ECONNREFUSED); retry 1 of 1 in 0.5 s');
      expect(unreachable.stderr).toMatch(/referral: POST .* the server could not be reached \(ECONNREFUSED\)\n$/);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
