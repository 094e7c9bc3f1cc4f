import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { forkLauncher } from '../../scripts/stack/member-process';
import type { RestartPolicyOptions } from '../../scripts/stack/restart-policy';
import { type LaunchMember, type MemberSpec, Supervisor } from '../../scripts/stack/supervisor';
import { eventually, isAlive } from '../helpers/processes';
import { TestTimers } from '../helpers/timers';
import { eventsFile, fakeMember, readEvents, startedPids } from './fixtures/fake-members';

/**
 * The supervisor's policy over real member processes (fake members on the real runProcess entry
 * point). Time is a TestTimers clock: the test moves it to the restart and kill deadlines, so the
 * backoff is asserted exactly and nothing waits for it.
 */
const POLICY: RestartPolicyOptions = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 30_000, maxFailures: 5, failureWindowMs: 60_000 };
const STOP_TIMEOUT_MS = 5_000;

interface Harness {
  supervisor: Supervisor;
  timers: TestTimers;
  lines: string[];
  events: string;
  launches: string[];
}

const running: Supervisor[] = [];
const outputs: number[] = [];

function supervise(members: (events: string) => MemberSpec[]): Harness {
  const events = eventsFile();
  const output = openSync(path.join(path.dirname(events), 'members.log'), 'a');
  outputs.push(output);
  const timers = new TestTimers();
  const lines: string[] = [];
  const launches: string[] = [];
  const fork = forkLauncher({ output });
  const launch: LaunchMember = (member) => {
    launches.push(member.name);
    return fork(member);
  };
  const supervisor = new Supervisor({
    members: members(events),
    launch,
    timers,
    stopTimeoutMs: STOP_TIMEOUT_MS,
    restartPolicy: POLICY,
    log: (line) => lines.push(line),
  });
  running.push(supervisor);
  supervisor.start();
  return { supervisor, timers, lines, events, launches };
}

afterEach(async () => {
  // A failed test must not leave members behind; stubborn ones need the kill deadline to pass.
  for (const supervisor of running.splice(0)) {
    const pids = Object.values(supervisor.pids()).filter((pid): pid is number => pid !== undefined);
    void supervisor.stop('test over');
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await supervisor.finished;
  }
  for (const output of outputs.splice(0)) closeSync(output);
});

const lineMatching = (lines: string[], pattern: RegExp) =>
  eventually(`a line matching ${pattern} in:\n${lines.join('\n')}`, () => lines.find((line) => pattern.test(line)));

describe('the stack supervisor', () => {
  it('restarts a crashed member after a backoff that doubles, says so, and starts the backoff again once it ran stably', async () => {
    const { supervisor, timers, lines, events } = supervise((file) => [fakeMember('audience', 0, file), fakeMember('gateway', 1, file)]);
    const [first] = await eventually(
      'both members started',
      () => startedPids(events, 'audience').length === 1 && startedPids(events, 'gateway').length === 1 && startedPids(events, 'audience'),
    );
    const gatewayPid = startedPids(events, 'gateway')[0]!;

    timers.advance(5_000);
    process.kill(first!, 'SIGUSR2'); // crashes with exit code 3
    expect(await lineMatching(lines, /^audience exited/)).toBe(
      'audience exited unexpectedly (exit code 3) after 5 s; restarting it in 1 s (failure 1 within 60 s; the stack stops at 5)',
    );
    expect(timers.pending()).toEqual([1_000]);
    timers.advance(999);
    expect(supervisor.pids().audience).toBeUndefined();
    timers.advance(1);
    const [, second] = await eventually(
      'the restarted audience',
      () => startedPids(events, 'audience').length === 2 && startedPids(events, 'audience'),
    );
    expect(second).not.toBe(first);
    expect(lines).toContain(`restarted audience (pid ${second})`);

    // Crashes again at once, by a signal this time: the wait doubles.
    process.kill(second!, 'SIGKILL');
    expect(await lineMatching(lines, /signal SIGKILL/)).toBe(
      'audience exited unexpectedly (signal SIGKILL) after 0 s; restarting it in 2 s (failure 2 within 60 s; the stack stops at 5)',
    );
    timers.advance(2_000);
    const [, , third] = await eventually('the third audience', () => startedPids(events, 'audience').length === 3 && startedPids(events, 'audience'));

    // Ran stably for 30 s: the next crash waits the first delay again.
    timers.advance(30_000);
    process.kill(third!, 'SIGUSR2');
    expect(await lineMatching(lines, /after 30 s/)).toMatch(/restarting it in 1 s/);

    // The other member was never touched.
    expect(startedPids(events, 'gateway')).toEqual([gatewayPid]);
    expect(isAlive(gatewayPid)).toBe(true);
  });

  it('gives up on a member that keeps crashing, and stops the rest with exit code 1', async () => {
    const { supervisor, timers, lines, events } = supervise((file) => [
      fakeMember('audience', 0, file),
      fakeMember('tax', 0, file, 'crash'),
      fakeMember('gateway', 1, file),
    ]);
    await eventually(
      'the healthy members started',
      () => startedPids(events, 'audience').length === 1 && startedPids(events, 'gateway').length === 1,
    );
    const delays: number[] = [];
    for (let failure = 1; failure < 5; failure += 1) {
      const [delay] = await eventually(`restart ${failure} of tax to be scheduled`, () => timers.pending().length === 1 && timers.pending());
      delays.push(delay!);
      timers.advance(delay!);
    }
    expect(await supervisor.finished).toBe(1);
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(startedPids(events, 'tax')).toHaveLength(5);
    expect(lines).toContain('tax failed 5 times within 60 s (last: exit code 3), so it is not restarted again: stopping gateway, then audience');
    // The healthy members were stopped gracefully, the gateway before the audience service.
    const stops = readEvents(events).filter((event) => event.event === 'stopping' || event.event === 'stopped');
    expect(stops.map((event) => `${event.name} ${event.event}`)).toEqual([
      'gateway stopping',
      'gateway stopped',
      'audience stopping',
      'audience stopped',
    ]);
  });

  it('does not restart a member that failed on its configuration, and stops the rest', async () => {
    const { supervisor, lines, timers, launches } = supervise((file) => [fakeMember('tax', 0, file, 'config-error'), fakeMember('gateway', 1, file)]);
    expect(await supervisor.finished).toBe(1);
    expect(launches).toEqual(['tax', 'gateway']);
    expect(timers.pending()).toEqual([]);
    expect(lines[0]).toBe(
      'tax cannot start with this configuration (exit code 78; its message above says what to fix), so restarting it would not help: stopping gateway',
    );
    // (The gateway may not have installed its signal handlers yet: it may end by SIGTERM itself.)
    expect(lines[lines.length - 2]).toMatch(/^gateway stopped \((exit code 0|signal SIGTERM)\)$/);
  });

  it('stops the gateway layer first, then the services, and kills a member that outlives its stop timeout', async () => {
    const { supervisor, timers, lines, events } = supervise((file) => [
      fakeMember('audience', 0, file),
      fakeMember('tax', 0, file, 'stubborn'),
      fakeMember('gateway', 1, file),
    ]);
    await eventually('every member started', () => readEvents(events).filter((event) => event.event === 'started').length === 3);
    const taxPid = startedPids(events, 'tax')[0]!;

    const stopped = supervisor.stop('SIGTERM received');
    await eventually('tax to be asked to stop', () => readEvents(events).some((event) => event.name === 'tax' && event.event === 'stopping'));
    await eventually('the audience service to stop', () => lines.includes('audience stopped (exit code 0)'));
    // Every member has its kill deadline; only tax, which never finishes stopping, is still running.
    expect(isAlive(taxPid)).toBe(true);
    expect(timers.pending()).toEqual([STOP_TIMEOUT_MS]);
    timers.advance(STOP_TIMEOUT_MS);
    expect(await stopped).toBe(0);
    expect(isAlive(taxPid)).toBe(false);

    expect(lines).toEqual([
      'SIGTERM received: stopping gateway, then audience and tax',
      'gateway stopped (exit code 0)',
      'audience stopped (exit code 0)',
      'tax did not stop within 5 s of SIGTERM; killing it',
      'tax stopped (signal SIGKILL)',
      'stopped',
    ]);
    const gatewayStopped = readEvents(events).find((event) => event.name === 'gateway' && event.event === 'stopped')!;
    const servicesAsked = readEvents(events).filter((event) => event.name !== 'gateway' && event.event === 'stopping');
    expect(servicesAsked).toHaveLength(2);
    for (const event of servicesAsked) expect(event.at).toBeGreaterThanOrEqual(gatewayStopped.at);
    // A second request to stop changes nothing.
    expect(await supervisor.stop('SIGINT received', 1)).toBe(0);
  });
});
