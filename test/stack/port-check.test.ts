import { loadConfig } from '../../services/platform/config';
import { ephemeralPortWarning, readEphemeralPortRange } from '../../scripts/stack/port-check';
import { stackConfigSchema, stackMembers } from '../../scripts/stack/members';

/**
 * npm start's warning about ports inside the kernel's ephemeral range, from which every outgoing
 * connection takes its local port: a member listening there may find its port taken at start.
 */
const LINUX_DEFAULT_RANGE = { low: 32768, high: 60999 };
const members = (env: Record<string, string> = {}) => stackMembers(loadConfig(stackConfigSchema, env));

describe('the ephemeral port range', () => {
  it('is read from the kernel’s file, and is unknown where there is none', () => {
    expect(readEphemeralPortRange(() => '32768\t60999\n')).toEqual(LINUX_DEFAULT_RANGE);
    expect(readEphemeralPortRange(() => '1024 65535')).toEqual({ low: 1024, high: 65535 });
    expect(
      readEphemeralPortRange(() => {
        throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
      }),
    ).toBeUndefined();
    expect(readEphemeralPortRange(() => 'garbage')).toBeUndefined();
  });
});

describe('the warning about ports inside it', () => {
  it('is not given for the defaults: every default port of npm start lies below the range', () => {
    const ports = members().flatMap((member) => (member.listens ?? []).map((address) => address.port));
    expect(ports.length).toBeGreaterThanOrEqual(7);
    for (const port of ports) expect(port).toBeLessThan(LINUX_DEFAULT_RANGE.low);
    expect(ephemeralPortWarning(members(), LINUX_DEFAULT_RANGE)).toBeUndefined();
  });

  it('names, in one line, each member inside the range and the variables that move it', () => {
    const warning = ephemeralPortWarning(members({ TAX_GRPC_ADDR: '127.0.0.1:50052', PORT: '60999', METRICS_PORT: '32767' }), LINUX_DEFAULT_RANGE);
    expect(warning).toBe(
      "warning: tax (TAX_GRPC_ADDR, port 50052), gateway (PORT, port 60999) would listen inside the kernel's ephemeral port range 32768-60999 " +
        '(/proc/sys/net/ipv4/ip_local_port_range), from which outgoing connections take their local ports, so a start may find its port taken: ' +
        'set TAX_GRPC_ADDR, PORT to a port below 32768',
    );
  });

  it('follows the range the kernel has, and says nothing where it is unknown or for a port taken at random (0)', () => {
    const lowered = ephemeralPortWarning(members(), { low: 20000, high: 30000 });
    expect(lowered).toMatch(
      /^warning: audience \(AUDIENCE_GRPC_ADDR, port 20051\), tax \(TAX_GRPC_ADDR, port 20052\), .*webhooks \(WEBHOOKS_GRPC_ADDR, port 20055\) would listen/,
    );
    expect(lowered).toMatch(/: set AUDIENCE_GRPC_ADDR, TAX_GRPC_ADDR, AGENCY_GRPC_ADDR, CLAIM_GRPC_ADDR, WEBHOOKS_GRPC_ADDR to a port below 20000$/);
    expect(ephemeralPortWarning(members({ TAX_GRPC_ADDR: '127.0.0.1:50052' }), undefined)).toBeUndefined();
    const anyPort = ephemeralPortWarning(members({ PORT: '0', METRICS_PORT: '0' }), { low: 0, high: 65535 });
    expect(anyPort).not.toContain('(PORT,');
    expect(anyPort).not.toContain('(METRICS_PORT,');
  });
});
