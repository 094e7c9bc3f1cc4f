import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromiumPath, chromiumProblem } from '../../scripts/check-chromium';
import { REGISTER_TS } from '../helpers/processes';

/** `npm test` stops at once, with the fix, when the browser tests would not find Chromium. */
const SCRIPT = path.resolve(__dirname, '../../scripts/check-chromium.ts');
const FIX = 'Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH';

async function check(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await promisify(execFile)(process.execPath, ['-r', REGISTER_TS, SCRIPT], { env });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('the Chromium check before the tests', () => {
  it('looks where the browser tests launch it: CHROMIUM_PATH, else Debian’s /usr/bin/chromium', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '' })).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
    const looked: string[] = [];
    expect(chromiumProblem({ CHROMIUM_PATH: '/opt/chrome/chrome' }, (file) => looked.push(file) > 0)).toBeUndefined();
    expect(looked).toEqual(['/opt/chrome/chrome']);
    expect(chromiumProblem({}, () => false)).toBe(`${FIX} (no executable file at /usr/bin/chromium)`);
  });

  it('stops with exit code 1 and the fix in one line when there is none, and passes quietly when there is one', async () => {
    const missing = await check({ PATH: process.env.PATH, CHROMIUM_PATH: path.join(__dirname, 'no-such-chromium') });
    expect(missing).toEqual({ code: 1, stderr: `${FIX} (no executable file at ${path.join(__dirname, 'no-such-chromium')})\n` });
    // A file that is there but cannot run is no Chromium either.
    expect((await check({ PATH: process.env.PATH, CHROMIUM_PATH: SCRIPT })).code).toBe(1);
    // Any executable stands in for Chromium here: the check only looks for the file.
    expect(await check({ PATH: process.env.PATH, CHROMIUM_PATH: process.execPath })).toEqual({ code: 0, stderr: '' });
  });
});
