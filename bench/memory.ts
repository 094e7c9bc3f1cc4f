/**
 * Samples the RSS of every process of the stack (the supervisor and its descendants) every
 * ~250 ms for the whole run, and keeps the peak per process and the peak of their sum.
 */
import { processName, processTree, rssBytes } from './proc';

export interface MemoryReport {
  samples: number;
  /** RSS per process name at the first sample, bytes: the stack just ready and idle (its modules loaded). */
  atStartByProcess: Map<string, number>;
  /** Peak RSS per process name, bytes. */
  peakByProcess: Map<string, number>;
  /** The phase during which each process reached its peak. */
  peakPhaseByProcess: Map<string, string>;
  /** Peak of the sum over the stack's processes at one sample, bytes. */
  peakTotal: number;
  /** Peak of the sum within each phase the run named. */
  peakTotalByPhase: Map<string, number>;
}

export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  private phase = 'start-up';
  private readonly report: MemoryReport = {
    samples: 0,
    atStartByProcess: new Map(),
    peakByProcess: new Map(),
    peakPhaseByProcess: new Map(),
    peakTotal: 0,
    peakTotalByPhase: new Map(),
  };

  constructor(
    private readonly rootPid: number,
    private readonly periodMs: number,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.periodMs);
  }

  setPhase(phase: string): void {
    this.sample();
    this.phase = phase;
  }

  stop(): MemoryReport {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return this.report;
  }

  private sample(): void {
    let total = 0;
    for (const pid of processTree(this.rootPid)) {
      const rss = rssBytes(pid);
      if (rss === undefined) continue;
      total += rss;
      const name = processName(pid);
      if (!this.report.atStartByProcess.has(name)) this.report.atStartByProcess.set(name, rss);
      if (rss > (this.report.peakByProcess.get(name) ?? 0)) {
        this.report.peakByProcess.set(name, rss);
        this.report.peakPhaseByProcess.set(name, this.phase);
      }
    }
    if (total === 0) return;
    this.report.samples += 1;
    this.report.peakTotal = Math.max(this.report.peakTotal, total);
    this.report.peakTotalByPhase.set(this.phase, Math.max(this.report.peakTotalByPhase.get(this.phase) ?? 0, total));
  }
}
