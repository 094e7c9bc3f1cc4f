import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomEvmAddress, useStackWithProject } from '../helpers/fixtures';
import { eventually } from '../helpers/processes';
import { CLI_TEST_TIMEOUT_MS, runCli, scratchFolder, startCli } from './run-cli';

/**
 * `referral send-conversions` run as a process against the real stack: each line reported by its
 * number, a re-run stores nothing twice, bad lines refuse the file before anything is sent, a run
 * killed mid-way and run again, and a batch whose answer was lost retried with the same ids.
 */
describe('referral send-conversions', () => {
  const { stack, project } = useStackWithProject();
  const files = scratchFolder();
  afterAll(() => files.remove());

  const env = (baseUrl = stack.baseUrl) => ({ REFERRAL_BASE_URL: baseUrl, REFERRAL_API_KEY: project.keys.service });
  const conversion = (id: string, fields: Record<string, unknown> = {}) => ({
    id,
    name: 'trade',
    user: { identifier: randomEvmAddress(), identifier_type: 'evm_address' },
    volume_usd: '12345678901234567.89',
    ...fields,
  });
  const ndjson = (items: unknown[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n';
  const stored = async (prefix: string) =>
    (await stack.db.query('SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND id LIKE $2', [project.id, `${prefix}%`]))
      .rows[0].n as number;

  it(
    'reports each line, and a re-run stores nothing twice: every line a duplicate',
    async () => {
      const file = files.file('five.ndjson', ndjson(Array.from({ length: 5 }, (_, i) => conversion(`rerun-${i}`))));
      const first = await runCli(['send-conversions', file, '--batch-size', '2'], env());
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(
        [1, 2, 3, 4, 5].map((line) => `line ${line}: accepted "rerun-${line - 1}" (accepted)\n`).join('') +
          'Sent 5 conversions: 5 accepted, 0 duplicate, 0 refused\n',
      );
      expect(first.stderr.match(/^progress: /gm)).toHaveLength(3);

      const again = await runCli(['send-conversions', file], env());
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^line 1: duplicate "rerun-0" \(\w+\)\n/);
      expect(again.stdout).toContain('Sent 5 conversions: 0 accepted, 5 duplicate, 0 refused\n');
      expect(await stored('rerun-')).toBe(5);
      const read = await stack.api.get('/api/v1/conversions/rerun-3', { key: project.keys.readOnly });
      expect(read.body.volume_usd).toBe('12345678901234567.89');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports refused lines by their number and exits 1; the other lines are stored',
    async () => {
      const reused = conversion('refused-0');
      await runCli(['send-conversions', files.file('first.ndjson', ndjson([reused]))], env());
      const file = files.file(
        'mixed.ndjson',
        [
          JSON.stringify(conversion('refused-1')),
          '',
          JSON.stringify(conversion('refused-2', { user: { identifier: '0xnothex', identifier_type: 'evm_address' } })),
          JSON.stringify({ ...reused, volume_usd: '1' }),
          JSON.stringify(conversion('refused-3')),
        ].join('\n'),
      );
      const result = await runCli(['send-conversions', file, '--quiet'], env());
      expect(result.code).toBe(1);
      // The field is named as in one conversion (user.identifier), not by its place in the batch: the line number says where.
      expect(result.stdout).toBe(
        'line 3: refused "refused-2": VALIDATION_FAILED: user.identifier: is not a valid evm_address (0x followed by 40 hex digits)\n' +
          'line 4: refused "refused-0": CONVERSION_ID_REUSED: a different conversion was already sent with this id; each conversion needs its own id (resend the original body to confirm it)\n' +
          'Sent 4 conversions: 2 accepted, 0 duplicate, 2 refused\n',
      );
      expect(await stored('refused-')).toBe(3);

      const json = await runCli(['send-conversions', file, '--json'], env());
      expect(json.code).toBe(1);
      const lines = json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => [line.line, line.outcome])).toEqual([
        [1, 'duplicate'],
        [3, 'refused'],
        [4, 'refused'],
        [5, 'duplicate'],
        [undefined, undefined],
      ]);
      expect(lines[4]).toEqual({ summary: { lines: 4, accepted: 0, duplicates: 2, refused: 2 } });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a file with lines that are no JSON object with an id, naming each, and sends nothing (exit 2)',
    async () => {
      const file = files.file(
        'bad.ndjson',
        [
          JSON.stringify(conversion('bad-1')),
          '{"id": "bad-2", "name": ',
          '[1, 2]',
          JSON.stringify({ name: 'trade' }),
          JSON.stringify(conversion('bad-5')),
        ].join('\n'),
      );
      const result = await runCli(['send-conversions', file], env());
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${file}: 3 bad lines, nothing was sent:`);
      expect(result.stderr).toMatch(/line 2: not JSON \(/);
      expect(result.stderr).toContain('line 3: not a JSON object (one conversion a line)');
      expect(result.stderr).toContain('line 4: id must be a string of 1 to 128 characters');
      expect(await stored('bad-')).toBe(0);
      const tooBig = await runCli(['send-conversions', file, '--batch-size', '1001'], env());
      expect(tooBig).toMatchObject({ code: 2, stderr: 'referral: --batch-size must be a whole number from 1 to 1000, not "1001"\n' });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'run again after being killed mid-way, stores every conversion exactly once',
    async () => {
      const file = files.file('many.ndjson', ndjson(Array.from({ length: 1_000 }, (_, i) => conversion(`killed-${i}`))));
      const killed = startCli(['send-conversions', file, '--batch-size', '50', '--quiet'], env());
      const sent = () => Math.max(0, ...[...killed.stderr().matchAll(/progress: (\d+)\/1,000 conversions/g)].map((match) => Number(match[1])));
      await eventually('three batches sent', () => sent() >= 150, 60_000);
      killed.child.kill('SIGKILL');
      expect(await killed.ended).toEqual({ code: null, signal: 'SIGKILL' });
      const before = await stored('killed-');
      expect(before).toBeGreaterThanOrEqual(150);
      expect(before).toBeLessThan(1_000);

      const resumed = await runCli(['send-conversions', file, '--batch-size', '50', '--json', '--quiet'], env());
      expect(resumed.code).toBe(0);
      const { summary } = JSON.parse(resumed.stdout.trim());
      // The killed run's last batch may be stored after `before` was read: the gateway finishes a request
      // whose client died. At most that one batch of 50 is a duplicate more; none is lost or stored twice.
      expect(summary).toMatchObject({ lines: 1_000, refused: 0 });
      expect(summary.accepted + summary.duplicates).toBe(1_000);
      expect(summary.duplicates).toBeGreaterThanOrEqual(before);
      expect(summary.duplicates).toBeLessThanOrEqual(before + 50);
      expect(await stored('killed-')).toBe(1_000);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'retries a batch whose answer was lost with the same ids: nothing stored twice',
    async () => {
      // A proxy in front of the gateway that forwards the first request but drops its answer (the connection is cut).
      let requests = 0;
      const proxy = http.createServer((request, response) => {
        requests += 1;
        const dropAnswer = requests === 1;
        const target = new URL(request.url ?? '/', stack.baseUrl);
        const forwarded = http.request(target, { method: request.method, headers: request.headers }, (answer) => {
          if (dropAnswer) {
            answer.resume();
            answer.on('end', () => request.socket.destroy());
            return;
          }
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        request.pipe(forwarded);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const file = files.file('lost.ndjson', ndjson(Array.from({ length: 3 }, (_, i) => conversion(`lost-${i}`))));
        const result = await runCli(['send-conversions', file], env(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
        expect(result.code).toBe(0);
        expect(requests).toBe(2);
        expect(result.stderr).toMatch(/POST \/api\/v1\/conversions\/batch: the server could not be reached \([^)]+\); retry 1 of 4 in 0\.5 s/);
        // The lost attempt stored them: the retry finds each a duplicate, and each is stored once.
        expect(result.stdout).toContain('Sent 3 conversions: 0 accepted, 3 duplicate, 0 refused\n');
        expect(await stored('lost-')).toBe(3);
      } finally {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
