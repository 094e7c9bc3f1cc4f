/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF_DIR=...): where the
 * process spent its CPU, by package and by function, self and inclusive.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [top=25] [filter]
 *   node dist/bench/profile-summary.js <gateway .cpuprofile> stages
 *
 * `filter` keeps only the samples whose stack contains a frame matching it (e.g. a route handler).
 * `stages` splits a gateway's samples by the stage of a request they belong to (GATEWAY_STAGES).
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

function readProfile(file: string) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { profile, byId, parent };
}

export function summarize(file: string, top = 25, filter?: string): string {
  const { profile, byId, parent } = readProfile(file);

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

/**
 * The stages of a gateway request, each with what marks a frame as its own. A sample belongs to the
 * stage of the frame nearest its leaf that matches one (so zod under the route's validation is
 * validation, pino under the metrics' listener is logging); frames that any stage uses (events,
 * streams, sockets, timers, promises) match none and leave the sample to their callers.
 */
const GATEWAY_STAGES: Array<{ stage: string; matches(url: string, name: string): boolean }> = [
  { stage: 'logging (pino)', matches: (url) => /node_modules\/(pino|sonic-boom|fast-redact)|platform\/logger/.test(url) },
  { stage: 'metrics (prom-client, the finish listener)', matches: (url) => /prom-client|gateway\/http\/metrics/.test(url) },
  {
    stage: 'validation (zod, text checks, ids)',
    matches: (url, name) =>
      name === 'parsePart' || /node_modules\/zod|http\/(params|request-text|input-messages)|json-safety|rules\/(identifiers|ids)/.test(url),
  },
  { stage: 'authentication (key cache, rate limit)', matches: (url) => /gateway\/auth\/|http\/rate-limit|access\//.test(url) },
  {
    stage: 'gRPC call (batching, protobuf, HTTP/2)',
    matches: (url) =>
      /@grpc|gen\/referral|gen\/google|node:internal\/http2|node:http2|platform\/batcher|user-audience-loader|platform\/grpc/.test(url),
  },
  {
    stage: 'response (presenting, JSON, writing)',
    matches: (url, name) =>
      name === 'sendJson' || name === 'writeHead' || /_http_outgoing|\.presenters\.js|http\/present/.test(url) || (name === 'stringify' && !url),
  },
  { stage: 'request id, async context', matches: (url) => /request-id|request-context|node:async_hooks/.test(url) },
  {
    stage: 'Express (routing, middleware, headers)',
    matches: (url) =>
      /node_modules\/(express|router|parseurl|finalhandler|path-to-regexp|body-parser|type-is|mime|qs|on-finished|serve-static|send)\/|http\/(route|security-headers|web-app|fallback|errors)|gateway\/app\.js/.test(
        url,
      ),
  },
  {
    stage: 'HTTP server (parsing, connection)',
    matches: (url) => /node:_http_(server|common|incoming)|malformed-requests|starting-app/.test(url),
  },
];

const START_UP = /run_main_module|compileForInternalLoader|Module\._load/;

/** A gateway profile's samples by stage, start-up left out: each stage's share of the rest. */
export function summarizeStages(file: string): string {
  const { profile, byId, parent } = readProfile(file);
  const byStage = new Map<string, number>();
  let startUp = 0;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!)!;
    const leafName = leaf.callFrame.functionName;
    if (leafName === '(idle)') continue;
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    if (stack.some((node) => START_UP.test(frameKey(node)))) {
      startUp += dt;
      continue;
    }
    let stage = leafName === '(garbage collector)' ? 'garbage collection' : leafName === '(program)' ? 'V8 (program)' : undefined;
    for (const node of stack) {
      if (stage) break;
      stage = GATEWAY_STAGES.find((rule) => rule.matches(node.callFrame.url, node.callFrame.functionName))?.stage;
    }
    const key = stage ?? 'other (timers, Redis, PostgreSQL, sockets)';
    byStage.set(key, (byStage.get(key) ?? 0) + dt);
    total += dt;
  }
  return [
    `${file}: ${total.toFixed(0)} ms sampled while not idle after start-up (${startUp.toFixed(0)} ms of start-up left out)`,
    ...[...byStage]
      .sort((a, b) => b[1] - a[1])
      .map(([stage, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${stage}`),
  ].join('\n');
}

if (require.main === module) {
  const [file, top, filter] = process.argv.slice(2);
  if (file && top === 'stages') {
    process.stdout.write(`${summarizeStages(file)}\n`);
    process.exit(0);
  }
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [top] [filter]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarize(file, top ? Number(top) : 25, filter)}\n`);
}
