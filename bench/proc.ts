/** Small readers of /proc (Linux): process trees, RSS and CPU time. */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
export const CLOCK_TICKS = 100;

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Direct children of a process, over all its threads. */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = new Set<number>();
  for (const task of tasks) {
    const text = readOrUndefined(`/proc/${pid}/task/${task}/children`);
    for (const token of text?.trim().split(/\s+/) ?? []) if (token) children.add(Number(token));
  }
  return [...children];
}

/** The process and all its descendants. */
export function processTree(root: number): number[] {
  const all: number[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    if (readOrUndefined(`/proc/${pid}/stat`) === undefined) continue;
    all.push(pid);
    pending.push(...childrenOf(pid));
  }
  return all;
}

/** Resident set size in bytes, or undefined when the process is gone. */
export function rssBytes(pid: number): number | undefined {
  const status = readOrUndefined(`/proc/${pid}/status`);
  const match = status && /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** A short name for a process of the stack, from its command line. */
export function processName(pid: number): string {
  const cmdline = (readOrUndefined(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean);
  const script = cmdline.find((arg) => arg.endsWith('.js'));
  if (!script) return cmdline[0] ?? `pid ${pid}`;
  if (script.endsWith('scripts/start-stack.js')) return 'supervisor';
  const service = /services\/([^/]+)\/main\.js$/.exec(script);
  if (service) return service[1]!;
  const top = /\/([^/]+)\/main\.js$/.exec(script);
  return top ? top[1]! : script;
}

/** User + system CPU time of a process in seconds, or undefined when it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name may contain spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the name and state.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = values;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / CLOCK_TICKS, total: (busy + idle + iowait) / CLOCK_TICKS };
}

export function loadAverage(): string {
  return (readOrUndefined('/proc/loadavg') ?? '').split(' ').slice(0, 3).join(' ');
}

/** When a process started, ms since the epoch (to 10 ms), or undefined when it is gone: --trace-gc counts from there. */
export function startedAt(pid: number): number | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  const bootSeconds = /^btime (\d+)$/m.exec(readOrUndefined('/proc/stat') ?? '')?.[1];
  if (!stat || bootSeconds === undefined) return undefined;
  // Field 22 of stat (starttime, in clock ticks since boot) is at 19 after the name and state.
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return Number(bootSeconds) * 1000 + (ticks / CLOCK_TICKS) * 1000;
}
