import { EXIT_CONFIG_ERROR } from '../../../services/platform/lifecycle';
import { RestartPolicy } from '../../../scripts/stack/restart-policy';

const options = { initialDelayMs: 1_000, maxDelayMs: 8_000, stableAfterMs: 30_000, maxFailures: 5, failureWindowMs: 60_000 };
const crash = { code: 1, signal: null };

describe('the restart policy of a stack member', () => {
  it('doubles the wait after each failure in a row, up to the maximum', () => {
    const policy = new RestartPolicy({ ...options, maxFailures: 100 });
    const delays = [0, 1, 2, 3, 4, 5].map((i) => policy.onExit(crash, 100, i * 20_000));
    expect(delays.map((decision) => decision.action === 'restart' && decision.delayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('starts the backoff again after a member ran stably', () => {
    const policy = new RestartPolicy(options);
    expect(policy.onExit(crash, 100, 0)).toMatchObject({ action: 'restart', delayMs: 1_000 });
    expect(policy.onExit(crash, 100, 1_200)).toMatchObject({ action: 'restart', delayMs: 2_000 });
    // Ran 29.9 s: not yet stable, the backoff goes on.
    expect(policy.onExit(crash, 29_900, 33_000)).toMatchObject({ action: 'restart', delayMs: 4_000 });
    // Ran 30 s: stable, back to the first wait.
    expect(policy.onExit(crash, 30_000, 67_000)).toMatchObject({ action: 'restart', delayMs: 1_000 });
  });

  it('gives up on the fifth failure within the window, and only within it', () => {
    const spread = new RestartPolicy(options);
    // Five failures, but never five within 60 s.
    for (const at of [0, 15_000, 30_000, 45_000, 60_000, 75_000]) {
      expect(spread.onExit(crash, 10_000, at).action).toBe('restart');
    }
    const loop = new RestartPolicy(options);
    const decisions = [0, 1_000, 3_000, 7_000, 15_000].map((at) => loop.onExit({ code: null, signal: 'SIGKILL' }, 50, at));
    expect(decisions.slice(0, 4).every((decision) => decision.action === 'restart')).toBe(true);
    expect(decisions[4]).toEqual({ action: 'give-up', because: 'crash-loop', failuresInWindow: 5 });
  });

  it('never restarts a member that exits with the configuration-error code', () => {
    const policy = new RestartPolicy(options);
    expect(policy.onExit({ code: EXIT_CONFIG_ERROR, signal: null }, 200, 0)).toEqual({ action: 'give-up', because: 'configuration' });
    // Other exit codes, including 0 (someone stopped it behind the supervisor's back), are restarted.
    expect(policy.onExit({ code: 0, signal: null }, 200, 0).action).toBe('restart');
  });
});
