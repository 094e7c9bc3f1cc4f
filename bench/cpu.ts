/**
 * Where the CPU goes during a phase: CPU seconds of each process of the stack, of the
 * PostgreSQL backends serving it (grouped by application_name), of PostgreSQL's background
 * processes, of this benchmark process, and of the whole machine (which shows how much else ran).
 */
import type pg from 'pg';
import { cpuSeconds, machineCpu, processName, processTree } from './proc';

interface Snapshot {
  at: number;
  byPid: Map<number, { group: string; cpu: number }>;
  self: NodeJS.CpuUsage;
  machine: { busy: number; total: number };
}

export interface CpuRow {
  group: string;
  seconds: number;
}

export interface CpuReport {
  wallSeconds: number;
  rows: CpuRow[];
  /** Busy CPU seconds of the whole machine (all cores) during the phase. */
  machineBusy: number;
  /** Capacity of the machine during the phase: wall time x cores. */
  machineCapacity: number;
}

export class CpuMeter {
  constructor(
    private readonly stackPid: number,
    private readonly db: pg.Client,
  ) {}

  async snapshot(): Promise<Snapshot> {
    const byPid = new Map<number, { group: string; cpu: number }>();
    for (const pid of processTree(this.stackPid)) {
      const cpu = cpuSeconds(pid);
      if (cpu !== undefined) byPid.set(pid, { group: processName(pid), cpu });
    }
    const backends = await this.db.query<{ pid: number; datname: string | null; backend_type: string; application_name: string }>(
      `SELECT pid, datname, backend_type, application_name FROM pg_stat_activity
       WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datname IS NULL)`,
    );
    for (const row of backends.rows) {
      const cpu = cpuSeconds(row.pid);
      if (cpu === undefined) continue;
      const group =
        row.datname === null
          ? 'postgres: background (shared by all databases)'
          : row.backend_type === 'client backend'
            ? `postgres: backends of ${row.application_name || '(unnamed)'}`
            : `postgres: ${row.backend_type}`;
      byPid.set(row.pid, { group, cpu });
    }
    return { at: performance.now(), byPid, self: process.cpuUsage(), machine: machineCpu() };
  }

  /** CPU used between two snapshots; a process born in between counts from its start. */
  static between(start: Snapshot, end: Snapshot, cores: number): CpuReport {
    const groups = new Map<string, number>();
    for (const [pid, after] of end.byPid) {
      const before = start.byPid.get(pid)?.cpu ?? 0;
      groups.set(after.group, (groups.get(after.group) ?? 0) + Math.max(0, after.cpu - before));
    }
    const selfEnd = end.self;
    const benchSeconds = (selfEnd.user - start.self.user + selfEnd.system - start.self.system) / 1e6;
    groups.set('bench client (this process)', benchSeconds);
    const wallSeconds = (end.at - start.at) / 1000;
    const rows = [...groups].map(([group, seconds]) => ({ group, seconds })).sort((a, b) => b.seconds - a.seconds);
    return {
      wallSeconds,
      rows,
      machineBusy: end.machine.busy - start.machine.busy,
      machineCapacity: end.machine.total - start.machine.total || wallSeconds * cores,
    };
  }
}

/**
 * Waits until the stack and its PostgreSQL backends are idle: under `maxCores` over each of
 * `windows` consecutive windows of `windowMs` (the benchmark's own connections and this process
 * do not count). After a phase whose work runs on in the background (consumers catching up with
 * events), so that the next measurement has the machine to itself. Returns the seconds waited.
 */
export async function waitUntilIdle(
  meter: CpuMeter,
  options: { maxCores?: number; windowMs?: number; windows?: number; timeoutMs: number },
): Promise<{ seconds: number; idle: boolean }> {
  const { maxCores = 0.05, windowMs = 1_000, windows = 2, timeoutMs } = options;
  const started = performance.now();
  let quiet = 0;
  let before = await meter.snapshot();
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = await meter.snapshot();
    const report = CpuMeter.between(before, after, 1);
    const busy = report.rows.filter((row) => !/^bench |backends of bench-/.test(row.group)).reduce((sum, row) => sum + row.seconds, 0);
    quiet = busy / report.wallSeconds <= maxCores ? quiet + 1 : 0;
    if (quiet >= windows) return { seconds: (performance.now() - started) / 1000, idle: true };
    before = after;
  }
  return { seconds: (performance.now() - started) / 1000, idle: false };
}
