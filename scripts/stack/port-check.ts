import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { ListenAddress, MemberSpec } from './supervisor';

/**
 * Before anything starts: is every member's address free, and does no member share another's
 * port? Answers the one line that says which variable to change, or undefined when all is well.
 * (A member that still loses a race for its port says so itself, naming its own variable.)
 */
export async function addressProblem(members: readonly MemberSpec[]): Promise<string | undefined> {
  const listening = members.flatMap((member) =>
    (member.listens ?? []).filter((address) => address.port !== 0).map((address) => ({ member, address })),
  );
  const byPort = new Map<number, { member: MemberSpec; address: ListenAddress }>();
  for (const { member, address } of listening) {
    const other = byPort.get(address.port);
    if (other) {
      return `${other.member.name} (${other.address.variable}) and ${member.name} (${address.variable}) would both listen on port ${address.port}: set ${address.variable} to ${example(address)}`;
    }
    byPort.set(address.port, { member, address });
  }
  for (const { member, address } of listening) {
    if (!(await isFree(address.host, address.port))) {
      return (
        `${member.name} cannot listen on ${address.host}:${address.port}: another process holds it (an earlier npm start still running?). ` +
        `Stop that process, or set ${address.variable} to ${example(address)}`
      );
    }
  }
  return undefined;
}

function example(address: ListenAddress): string {
  return address.form === 'port' ? 'a free port' : 'a free host:port';
}

/** Only "in use" counts: any other error (an unknown host) is left for the member to report. */
function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'EADDRINUSE'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** Where Linux keeps the range it draws the local ports of outgoing connections from. */
export const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

export interface PortRange {
  low: number;
  high: number;
}

/** The kernel's ephemeral port range, or undefined where there is none to read (not Linux). */
export function readEphemeralPortRange(read: () => string = () => readFileSync(EPHEMERAL_RANGE_FILE, 'utf8')): PortRange | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const [low, high] = text.trim().split(/\s+/).map(Number);
  return Number.isInteger(low) && Number.isInteger(high) ? { low: low!, high: high! } : undefined;
}

/**
 * One line when a member would listen inside the kernel's ephemeral port range, naming the
 * variables to change; undefined otherwise. Not fatal: such a port usually works, but every
 * outgoing connection (each member opens dozens, to PostgreSQL and Redis) takes a local port from
 * that range, and one may take a member's port just before the member binds it (1 start
 * in 27 failed so with the old defaults 50051-50055).
 */
export function ephemeralPortWarning(members: readonly MemberSpec[], range: PortRange | undefined): string | undefined {
  if (!range) return undefined;
  const inside = members.flatMap((member) =>
    (member.listens ?? [])
      .filter((address) => address.port !== 0 && address.port >= range.low && address.port <= range.high)
      .map((address) => ({ member, address })),
  );
  if (inside.length === 0) return undefined;
  const listed = inside.map(({ member, address }) => `${member.name} (${address.variable}, port ${address.port})`).join(', ');
  const variables = [...new Set(inside.map(({ address }) => address.variable))].join(', ');
  return (
    `warning: ${listed} would listen inside the kernel's ephemeral port range ${range.low}-${range.high} (${EPHEMERAL_RANGE_FILE}), ` +
    `from which outgoing connections take their local ports, so a start may find its port taken: set ${variables} to a port below ${range.low}`
  );
}
