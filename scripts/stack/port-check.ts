import net from 'node:net';
import type { ListenAddress, MemberSpec } from './supervisor';

/**
 * Before anything starts: is every member's address free, and does no member share another's
 * port? Answers the one line that says which variable to change, or undefined when all is well.
 * (A member that still loses a race for its port says so itself, naming its own variable.)
 */
export async function addressProblem(members: readonly MemberSpec[]): Promise<string | undefined> {
  const listening = members.flatMap((member) => (member.listens ?? []).filter((address) => address.port !== 0).map((address) => ({ member, address })));
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
