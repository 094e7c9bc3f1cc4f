import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { MemberSpec } from '../../scripts/stack/supervisor';
import { readEphemeralPortRange } from '../../scripts/stack/port-check';
import { endOf, eventually, isAlive, type NodeProcess, portIsFree, REGISTER_TS, startTs } from '../helpers/processes';
import { eventsFile, fakeMember, readEvents } from './fixtures/fake-members';

/**
 * The supervisor as the process `npm start` runs (scripts/stack/run-stack.ts), over fake members:
 * how it reacts to signals, to the death of its parent, and to its own death.
 */
const FAKE_STACK = path.join(__dirname, 'fixtures/fake-stack.ts');

function stackEnv(members: MemberSpec[]): NodeJS.ProcessEnv {
  return { ...process.env, FAKE_STACK_MEMBERS: JSON.stringify(members), FAKE_STACK_STOP_TIMEOUT_MS: '5000' };
}

function threeMembers(events: string): MemberSpec[] {
  return [fakeMember('audience', 0, events), fakeMember('tax', 0, events), fakeMember('gateway', 1, events)];
}

const started = (events: string) =>
  eventually('every member started', () => {
    const pids = readEvents(events)
      .filter((event) => event.event === 'started')
      .map((event) => event.pid);
    return pids.length === 3 && pids;
  });

/** Every member said it stopped (gracefully), and its process is gone. */
async function allStoppedGracefully(events: string, pids: number[]): Promise<void> {
  await eventually('every member gone', () => pids.every((pid) => !isAlive(pid)));
  const stopped = readEvents(events)
    .filter((event) => event.event === 'stopped')
    .map((event) => event.pid);
  expect(stopped.sort()).toEqual([...pids].sort());
}

/** Processes a failed test may leave running: supervisors first, so none restarts a member killed after it. */
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe('npm start supervisor process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('on %s stops every member, the gateway first, and exits 0', async (signal) => {
    const events = eventsFile();
    const stack = startTs(FAKE_STACK, { env: stackEnv(threeMembers(events)) });
    const pids = await started(events);
    leftovers.push(stack.child.pid!, ...pids);

    stack.child.kill(signal);
    expect(await endOf(stack)).toEqual({ code: 0, signal: null });
    await allStoppedGracefully(events, pids);
    const gatewayStopped = readEvents(events).find((event) => event.name === 'gateway' && event.event === 'stopped')!;
    for (const event of readEvents(events).filter((e) => e.name !== 'gateway' && e.event === 'stopping')) {
      expect(event.at).toBeGreaterThanOrEqual(gatewayStopped.at);
    }
    expect(stack.output()).toContain(`stack: ${signal} received: stopping gateway, then audience and tax\n`);
    expect(stack.output()).toMatch(/stack: stopped\n$/);
  });

  it('stops every member when the process that started it dies (npm killed with SIGKILL)', async () => {
    const events = eventsFile();
    // The parent stands in for npm: it starts the supervisor and would forward signals, but it is killed outright.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, ['-r', ${JSON.stringify(REGISTER_TS)}, ${JSON.stringify(FAKE_STACK)}], { stdio: 'inherit' }); setInterval(() => {}, 60000);`,
      ],
      { env: stackEnv(threeMembers(events)), stdio: 'ignore' },
    );
    const pids = await started(events);
    // The supervisor first: once its parent is gone, it is the one that could restart members.
    leftovers.push(readEvents(events)[0]!.ppid, parent.pid!, ...pids);

    parent.kill('SIGKILL');
    await allStoppedGracefully(events, pids);
  });

  it('when the supervisor itself is killed, its members notice and stop gracefully', async () => {
    const events = eventsFile();
    const stack = startTs(FAKE_STACK, { env: stackEnv(threeMembers(events)) });
    const pids = await started(events);
    leftovers.push(stack.child.pid!, ...pids);

    stack.child.kill('SIGKILL');
    await allStoppedGracefully(events, pids);
    expect(stack.output()).toContain('audience: the supervisor is gone (IPC channel closed), shutting down');
  });

  it('warns in one line, and starts all the same, when a member would listen inside the kernel’s ephemeral port range', async () => {
    const range = readEphemeralPortRange();
    expect(range).toBeDefined(); // Linux: the file is there
    const port = await eventually('a free port inside the ephemeral range', async () => {
      const candidate = range!.low + Math.floor(Math.random() * (range!.high - range!.low));
      return (await portIsFree(candidate)) && candidate;
    });
    const events = eventsFile();
    const members = threeMembers(events);
    members[1]!.listens = [{ host: '127.0.0.1', port, variable: 'TAX_GRPC_ADDR', form: 'host:port' }];
    const stack = startTs(FAKE_STACK, { env: stackEnv(members) });
    const pids = await started(events);
    leftovers.push(stack.child.pid!, ...pids);
    const warnings = stack
      .output()
      .split('\n')
      .filter((line) => line.startsWith('stack: warning: '));
    expect(warnings).toEqual([
      expect.stringContaining(`tax (TAX_GRPC_ADDR, port ${port}) would listen inside the kernel's ephemeral port range ${range!.low}-${range!.high}`),
    ]);
    expect(warnings[0]).toMatch(/set TAX_GRPC_ADDR to a port below \d+$/);

    stack.child.kill('SIGTERM');
    expect(await endOf(stack)).toEqual({ code: 0, signal: null });
  });

  it('refuses to start when a port is taken, in one line naming the variable that moves it', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const events = eventsFile();
      const members = threeMembers(events);
      members[1]!.listens = [{ host: '127.0.0.1', port, variable: 'TAX_GRPC_ADDR', form: 'host:port' }];
      const stack: NodeProcess = startTs(FAKE_STACK, { env: stackEnv(members) });
      expect(await endOf(stack)).toEqual({ code: 1, signal: null });
      expect(stack.output()).toBe(
        `stack: tax cannot listen on 127.0.0.1:${port}: another process holds it (an earlier npm start still running?). ` +
          'Stop that process, or set TAX_GRPC_ADDR to a free host:port\n',
      );
      expect(readEvents(events)).toEqual([]);
    } finally {
      holder.close();
    }
  });
});
