/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF_DIR=...): where the
 * process spent its CPU, by package and by function, self and inclusive.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [top=25] [filter]
 *
 * `filter` keeps only the samples whose stack contains a frame matching it (e.g. a route handler).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native/V8)';
  if (url.startsWith('node:'))
    return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(1, 2).join('/') || 'internal' : url.slice(5)}`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0
    ? `app:${url
        .slice(dist + 6)
        .split('/')
        .slice(0, 2)
        .join('/')}`
    : url;
}

function frameKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url
    ? `${url
        .replace(/^.*node_modules\//, '')
        .replace(/^.*\/dist\//, '')
        .replace(/^file:\/\//, '')}:${lineNumber + 1}`
    : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

export function summarize(file: string, top = 25, filter?: string): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByFrame = new Map<string, number>();
  const selfByPackage = new Map<string, number>();
  const inclusiveByFrame = new Map<string, number>();
  const inclusiveByPackage = new Map<string, number>();
  let total = 0;
  let idle = 0;
  const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);

  for (let i = 0; i < profile.samples.length; i += 1) {
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!)!;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') {
      idle += dt;
      continue;
    }
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    if (filter && !stack.some((node) => frameKey(node).includes(filter))) continue;
    total += dt;
    add(selfByFrame, frameKey(leaf), dt);
    add(selfByPackage, packageOf(leaf.callFrame.url, name), dt);
    const frames = new Set(stack.map(frameKey));
    for (const frame of frames) add(inclusiveByFrame, frame, dt);
    const packages = new Set(stack.map((node) => packageOf(node.callFrame.url, node.callFrame.functionName)));
    for (const pkg of packages) add(inclusiveByPackage, pkg, dt);
  }

  const wall = (profile.endTime - profile.startTime) / 1000;
  const list = (title: string, map: Map<string, number>) =>
    [
      `-- ${title}`,
      ...[...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([key, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${key}`),
    ].join('\n');
  return [
    `${file}: ${wall.toFixed(0)} ms profiled, ${total.toFixed(0)} ms sampled while not idle (V8 samples wall time, so a thread preempted inside a syscall such as writev still counts)${filter ? ` under "${filter}"` : ''}, ${idle.toFixed(0)} ms idle`,
    list('self time by package', selfByPackage),
    list('inclusive time by package (a sample counts once per package on its stack)', inclusiveByPackage),
    list('self time by function', selfByFrame),
    list('inclusive time by function', inclusiveByFrame),
  ].join('\n\n');
}

if (require.main === module) {
  const [file, top, filter] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [top] [filter]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarize(file, top ? Number(top) : 25, filter)}\n`);
}
