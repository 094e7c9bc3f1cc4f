/**
 * `npm start`: the whole stack on one machine. Each service and the gateway run as their own
 * process (as they do in containers), started from the same entry points docker-compose uses.
 * The gateway's address variables (AUDIENCE_GRPC_ADDR, TAX_GRPC_ADDR, ...) decide each service's port.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';

interface Member {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  execArgv?: string[];
}

function portOf(address: string | undefined, fallback: number): string {
  const port = address?.split(':').pop();
  return port && /^\d+$/.test(port) ? port : String(fallback);
}

const dist = path.resolve(__dirname, '..');
const services: Member[] = [
  {
    name: 'audience',
    entry: path.join(dist, 'services/audience/main.js'),
    env: { GRPC_HOST: '127.0.0.1', GRPC_PORT: portOf(process.env.AUDIENCE_GRPC_ADDR, 50051) },
  },
  {
    name: 'tax',
    entry: path.join(dist, 'services/tax/main.js'),
    env: { GRPC_HOST: '127.0.0.1', GRPC_PORT: portOf(process.env.TAX_GRPC_ADDR, 50052) },
  },
];
/**
 * Each request leaves short-lived garbage behind; a larger young generation collects it less often
 * (measured: about a tenth less gateway CPU per lookup). docker-compose and deploy/k8s set the same.
 */
const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=64'];

// One gateway process by default: here it shares the cores with the services and PostgreSQL, and
// on two cores a second gateway worker cost more CPU per lookup than it gained (smaller batches).
const gateway: Member = {
  name: 'gateway',
  entry: path.join(dist, 'gateway/main.js'),
  env: { GATEWAY_WORKERS: process.env.GATEWAY_WORKERS ?? '1' },
  execArgv: GATEWAY_NODE_FLAGS,
};

const children = new Map<string, ChildProcess>();
let stopping = false;

function start(member: Member): ChildProcess {
  const child = fork(member.entry, [], {
    env: { ...process.env, ...member.env },
    execArgv: [...process.execArgv, ...(member.execArgv ?? [])],
    stdio: 'inherit',
  });
  children.set(member.name, child);
  child.on('exit', (code, signal) => {
    children.delete(member.name);
    if (!stopping) {
      process.stderr.write(`stack: ${member.name} exited (${signal ?? code}); stopping the rest\n`);
      void stop(1);
    } else if (children.size === 0) {
      process.exit(exitCode);
    }
  });
  return child;
}

let exitCode = 0;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  // The gateway first, so no request reaches a service that is going away.
  const gatewayChild = children.get(gateway.name);
  if (gatewayChild) {
    gatewayChild.kill('SIGTERM');
    await new Promise((resolve) => gatewayChild.once('exit', resolve));
  }
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(exitCode);
}

process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

for (const service of services) start(service);
// Services migrate their own schemas at start; the gateway only needs them reachable when called.
start(gateway);
process.stderr.write(
  `stack: starting ${[...services, gateway].map((m) => m.name).join(', ')}; ` +
    `the gateway listens on http://localhost:${process.env.PORT ?? 8080} (API reference at /docs)\n`,
);
