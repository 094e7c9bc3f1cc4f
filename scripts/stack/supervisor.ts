import { DEFAULT_RESTART_POLICY, describeExit, type MemberExit, RestartPolicy, type RestartPolicyOptions } from './restart-policy';
import { type Cancel, systemTimers, type Timers } from './timers';

/** Where a member listens, and the variable that moves it (named when the address is taken). */
export interface ListenAddress {
  host: string;
  port: number;
  variable: string;
  /** What the variable holds: a bare port (PORT) or host:port (AUDIENCE_GRPC_ADDR). */
  form: 'port' | 'host:port';
}

/** One process of the stack, as the supervisor starts it. */
export interface MemberSpec {
  name: string;
  /** The entry point: a script path. */
  entry: string;
  /** Variables added to the supervisor's own environment for this member. */
  env: Record<string, string>;
  /** Node flags added to the supervisor's own. */
  execArgv?: string[];
  /**
   * Stop order: the highest layer stops first, each layer completely before the next, so the
   * gateway (layer 1) sends no call to a service (layer 0) that is going away.
   */
  layer: number;
  /** Every address it listens on (the gateway: its API port and its metrics port). */
  listens?: ListenAddress[];
}

/** A running member process, as the supervisor needs it (member-process.ts forks real ones). */
export interface MemberProcess {
  readonly pid: number | undefined;
  signal(signal: NodeJS.Signals): void;
  /** Settles once, when the process has exited. */
  readonly exited: Promise<MemberExit>;
}

export type LaunchMember = (member: MemberSpec) => MemberProcess;

export interface SupervisorOptions {
  members: readonly MemberSpec[];
  launch: LaunchMember;
  /** How long a member may take to stop after SIGTERM before it is killed with SIGKILL. */
  stopTimeoutMs: number;
  restartPolicy?: RestartPolicyOptions;
  timers?: Timers;
  /** Where the supervisor's lines go (one line each, without a trailing newline). */
  log?: (line: string) => void;
}

interface Member {
  spec: MemberSpec;
  policy: RestartPolicy;
  process?: MemberProcess;
  startedAtMs: number;
  cancelRestart?: Cancel;
  stopping: boolean;
}

/**
 * Runs the members of the stack: starts them, restarts one that exits on its own (with backoff,
 * see RestartPolicy), gives up and stops everything when a member cannot start with its
 * configuration or keeps crashing, and stops everything in layer order when asked to.
 */
export class Supervisor {
  private readonly members: Member[];
  private readonly timers: Timers;
  private readonly log: (line: string) => void;
  private readonly policy: RestartPolicyOptions;
  private stopping: Promise<number> | undefined;
  private resolveFinished!: (exitCode: number) => void;
  /** The supervisor's exit code, once every member is gone after stop(). */
  readonly finished = new Promise<number>((resolve) => {
    this.resolveFinished = resolve;
  });

  constructor(private readonly options: SupervisorOptions) {
    this.timers = options.timers ?? systemTimers;
    this.log = options.log ?? ((line) => process.stderr.write(`stack: ${line}\n`));
    this.policy = options.restartPolicy ?? DEFAULT_RESTART_POLICY;
    this.members = options.members.map((spec) => ({
      spec,
      policy: new RestartPolicy(this.policy),
      startedAtMs: 0,
      stopping: false,
    }));
  }

  start(): void {
    for (const member of this.members) this.launch(member);
  }

  /** The pid of each member now running (a member waiting for its restart has none). */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.members.map((member) => [member.spec.name, member.process?.pid]));
  }

  /**
   * Stops every member, the highest layer first: SIGTERM, then SIGKILL for one still running after
   * stopTimeoutMs. Resolves with the exit code once all are gone; later calls change nothing.
   */
  stop(reason: string, exitCode = 0): Promise<number> {
    this.stopping ??= this.stopAll(reason, exitCode);
    return this.stopping;
  }

  private async stopAll(reason: string, exitCode: number): Promise<number> {
    const layers = [...new Set(this.members.map((member) => member.spec.layer))].sort((a, b) => b - a);
    const order = layers
      .map((layer) =>
        this.inLayer(layer)
          .filter((member) => member.process)
          .map((member) => member.spec.name)
          .join(' and '),
      )
      .filter((names) => names !== '')
      .join(', then ');
    this.log(`${reason}: stopping ${order || 'the stack'}`);
    for (const member of this.members) member.cancelRestart?.();
    for (const layer of layers) await Promise.all(this.inLayer(layer).map((member) => this.terminate(member)));
    this.log(`stopped${exitCode === 0 ? '' : ` (exit code ${exitCode})`}`);
    this.resolveFinished(exitCode);
    return exitCode;
  }

  private inLayer(layer: number): Member[] {
    return this.members.filter((member) => member.spec.layer === layer);
  }

  private async terminate(member: Member): Promise<void> {
    const running = member.process;
    if (!running) return;
    member.stopping = true;
    running.signal('SIGTERM');
    const cancelKill = this.timers.schedule(this.options.stopTimeoutMs, () => {
      this.log(`${member.spec.name} did not stop within ${seconds(this.options.stopTimeoutMs)} of SIGTERM; killing it`);
      running.signal('SIGKILL');
    });
    const exit = await running.exited;
    cancelKill();
    this.log(`${member.spec.name} stopped (${describeExit(exit)})`);
  }

  private launch(member: Member): void {
    const running = this.options.launch(member.spec);
    member.process = running;
    member.startedAtMs = this.timers.now().getTime();
    void running.exited.then((exit) => this.exited(member, running, exit));
  }

  private exited(member: Member, running: MemberProcess, exit: MemberExit): void {
    if (member.process === running) member.process = undefined;
    if (member.stopping) return; // terminate() reports it
    const name = member.spec.name;
    if (this.stopping) {
      this.log(`${name} exited (${describeExit(exit)}) while the stack was stopping`);
      return;
    }
    const nowMs = this.timers.now().getTime();
    const ranForMs = nowMs - member.startedAtMs;
    const decision = member.policy.onExit(exit, ranForMs, nowMs);
    if (decision.action === 'give-up') {
      const reason =
        decision.because === 'configuration'
          ? `${name} cannot start with this configuration (${describeExit(exit)}; its message above says what to fix), so restarting it would not help`
          : `${name} failed ${decision.failuresInWindow} times within ${seconds(this.policy.failureWindowMs)} (last: ${describeExit(exit)}), so it is not restarted again`;
      void this.stop(reason, 1);
      return;
    }
    this.log(
      `${name} exited unexpectedly (${describeExit(exit)}) after ${seconds(ranForMs)}; restarting it in ${seconds(decision.delayMs)} ` +
        `(failure ${decision.failuresInWindow} within ${seconds(this.policy.failureWindowMs)}; the stack stops at ${this.policy.maxFailures})`,
    );
    member.cancelRestart = this.timers.schedule(decision.delayMs, () => {
      member.cancelRestart = undefined;
      if (this.stopping) return;
      this.launch(member);
      this.log(`restarted ${name} (pid ${member.process?.pid})`);
    });
  }
}

/** "1 s", "2.5 s", "0.05 s". */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toPrecision(3))} s`;
}
