import { spawn } from 'node:child_process';
import path from 'node:path';
import { REGISTER_TS } from '../helpers/processes';

const FIXTURE = path.join(__dirname, 'fixtures', 'logging-process.ts');
const SECRETS = ['sk_live_secret', '123-45-6789'];
/** A pretty line: `[12:00:00.000] INFO: fixture: line 1` (the format alone: test/unit/common/log-format.test.ts). */
const PRETTY_LINE = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: fixture: line 1$/m;
// Colour codes a terminal gets, and the carriage returns of its line endings.
// eslint-disable-next-line no-control-regex -- ESC starts the colour codes it removes
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');

describe('a process that logs', () => {
  const LINES = 2_000;
  const SLOW_READER_MS = 300;
  const baseEnvOf = (env: Record<string, string>) => ({ ...process.env, NODE_ENV: 'development', LOG_FORMAT: '', LINES: String(LINES), ...env });

  /** What a shell command wrote to stdout, once it has exited 0. */
  function stdoutOf(command: string, args: string[], env: Record<string, string>): Promise<string> {
    const child = spawn(command, args, { env: baseEnvOf(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stdout}${stderr}`))));
    });
  }

  // The fixture's logs (stderr, where runProcess writes its own lines, left out).
  const fixture = `${process.execPath} -r ${REGISTER_TS} ${FIXTURE} 2>/dev/null`;
  /** On a pseudo-terminal (script(1)), as when a person runs it. */
  const inTerminal = async (env: Record<string, string>) => plain(await stdoutOf('script', ['-qec', fixture, '/dev/null'], env));
  /**
   * Into a pipe whose reader starts late, as a busy supervisor or log collector does: the pipe fills
   * while the process stops, and its last lines must still arrive, all of them and in order.
   */
  const piped = (env: Record<string, string>) => stdoutOf('sh', ['-c', `${fixture} | (sleep ${SLOW_READER_MS / 1000}; cat)`], env);

  const jsonLines = (output: string) =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string });

  it('writes readable lines on a terminal in development, JSON in production or with LOG_FORMAT=json, and never a secret', async () => {
    const [development, production, forcedJson] = await Promise.all([
      inTerminal({}),
      inTerminal({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) }),
      inTerminal({ LOG_FORMAT: 'json' }),
    ]);
    expect(development).toMatch(PRETTY_LINE);
    expect(development).toContain('fixture: fixture stopped');
    expect(jsonLines(development)).toEqual([]);
    for (const output of [production, forcedJson]) {
      expect(output).not.toMatch(PRETTY_LINE);
      expect(jsonLines(output)).toHaveLength(LINES + 1);
    }
    for (const output of [development, production, forcedJson]) for (const secret of SECRETS) expect(output).not.toContain(secret);
  });

  it('writes JSON into a pipe, and pretty lines there with LOG_FORMAT=pretty; every line is flushed before it exits', async () => {
    const [json, pretty] = await Promise.all([piped({}), piped({ LOG_FORMAT: 'pretty' })]);
    expect(jsonLines(json).map((line) => line.msg)).toEqual([...Array.from({ length: LINES }, (_, i) => `line ${i + 1}`), 'fixture stopped']);

    expect(jsonLines(pretty)).toEqual([]);
    expect(pretty).toMatch(PRETTY_LINE);
    const written = [...pretty.matchAll(/INFO: fixture: line (\d+)$/gm)].map((match) => Number(match[1]));
    expect(written).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
    expect(pretty.trimEnd().split('\n').at(-1)).toMatch(/INFO: fixture: fixture stopped$/);
    for (const secret of SECRETS) expect(pretty).not.toContain(secret);
  });
});
