/** Plain-text tables for the benchmark's output. */
import type { CpuReport } from './cpu';
import type { RunFigures } from './lookup';
import type { MemoryReport } from './memory';

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map((_, column) => rows.every((row) => /^[-+]?[\d.,]+( ?[a-zA-Z/%×x]+)?$|^-$/.test(String(row[column] ?? ''))));
  const line = (row: string[]) =>
    row.map((cell, column) => (numeric[column] && column > 0 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ');
  return [line(cells[0]!), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function keyValues(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}

export const fmt = {
  int: (value: number) => Math.round(value).toLocaleString('en-US'),
  s: (value: number) => `${value.toFixed(2)} s`,
  ms: (value: number) => `${value.toFixed(2)} ms`,
  mb: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`,
  ratio: (value: number) => `${value.toFixed(2)}x`,
  pct: (value: number) => `${(value * 100).toFixed(0)}%`,
};

export function section(title: string): string {
  return `\n== ${title} ${'='.repeat(Math.max(0, 76 - title.length))}`;
}

export function lookupTable(runs: RunFigures[]): string {
  return table(
    ['path', 'req/s', 'p50', 'p90', 'p99', 'max', '2xx/ok', 'non-2xx', 'errors', 'timeouts'],
    runs.map((run) => [
      run.label,
      fmt.int(run.rps),
      fmt.ms(run.p50),
      fmt.ms(run.p90),
      fmt.ms(run.p99),
      fmt.ms(run.max),
      fmt.int(run.ok),
      fmt.int(run.non2xx),
      fmt.int(run.errors),
      fmt.int(run.timeouts),
    ]),
  );
}

/** CPU by process group during one phase; `per` divides CPU time by a unit of work. */
export function cpuTable(report: CpuReport, per: { count: number; unit: string; scale: number; label: string }): string {
  const rows = report.rows
    .filter((row) => row.seconds >= 0.005)
    .map((row) => [
      row.group,
      row.seconds.toFixed(2),
      (row.seconds / report.wallSeconds).toFixed(2),
      ((row.seconds / per.count) * per.scale).toFixed(1),
    ]);
  const tracked = report.rows.reduce((sum, row) => sum + row.seconds, 0);
  rows.push(['(all of the above)', tracked.toFixed(2), (tracked / report.wallSeconds).toFixed(2), ((tracked / per.count) * per.scale).toFixed(1)]);
  const others = Math.max(0, report.machineBusy - tracked);
  rows.push([
    '(other processes on the machine)',
    others.toFixed(2),
    (others / report.wallSeconds).toFixed(2),
    ((others / per.count) * per.scale).toFixed(1),
  ]);
  rows.push([
    '(whole machine: busy / capacity)',
    `${report.machineBusy.toFixed(2)} / ${report.machineCapacity.toFixed(2)}`,
    (report.machineBusy / report.wallSeconds).toFixed(2),
    ((report.machineBusy / per.count) * per.scale).toFixed(1),
  ]);
  return table(['process', 'CPU s', 'cores', per.label], rows);
}

export function memoryTable(memory: MemoryReport): string {
  const rows = [...memory.peakByProcess]
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => [name, fmt.mb(memory.atStartByProcess.get(name) ?? 0), fmt.mb(bytes), memory.peakPhaseByProcess.get(name) ?? '-']);
  const atStart = [...memory.atStartByProcess.values()].reduce((sum, bytes) => sum + bytes, 0);
  rows.push(['(peak of the sum)', fmt.mb(atStart), fmt.mb(memory.peakTotal), '-']);
  for (const [phase, bytes] of memory.peakTotalByPhase) rows.push([`  sum, peak during ${phase}`, '-', fmt.mb(bytes), '-']);
  return table(['process', 'RSS at start (idle)', 'peak RSS', 'peak during'], rows);
}
