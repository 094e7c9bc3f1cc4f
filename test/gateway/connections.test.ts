import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { ConfigError } from '../../services/platform/config';
import { CATALOG } from '../../services/platform/service-catalog';
import { LogCapture } from '../helpers/log-capture';
import { pollUntil } from '../helpers/poll';
import { freePort, portIsFree } from '../helpers/processes';
import { createTestDatabase, deleteKeys, type GrpcAddresses, newQueuePrefix, startTestGateway, type TestGateway } from '../helpers/stack';
import { TEST_REDIS_URL } from '../setup/test-env';

/**
 * The gateway's connections: its ports are bound before it connects to anything, a client too slow
 * to send its request is cut off after the configured timeouts (Node's own would let it hold a
 * connection for minutes), and a stopping gateway does not wait on its keep-alive clients. Only
 * PostgreSQL and Redis are needed: no service is called.
 */

/** No service runs: the routes used here (/healthz, sign-in's nonce) call none. */
const NO_SERVICES = Object.fromEntries(CATALOG.map((service) => [service.name, '127.0.0.1:1'])) as GrpcAddresses;

/** A raw HTTP/1.1 connection, to send a request a byte at a time and see exactly what comes back. */
class RawConnection {
  received = '';
  ended = false;
  readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (this.received += chunk));
    socket.on('end', () => (this.ended = true));
    socket.on('close', () => (this.ended = true));
    socket.on('error', () => (this.ended = true));
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Waits, bounded, for the connection to be closed by the server. */
  closed(timeoutMs: number, what: string): Promise<true> {
    return pollUntil(async () => this.ended, { timeoutMs, what, intervalMs: 20 });
  }

  /** Waits, bounded, for a complete answer (headers and Content-Length bytes of body) after `from` characters. */
  async answer(timeoutMs: number, what: string, from = 0): Promise<{ head: string; body: string; end: number }> {
    return pollUntil(
      async () => {
        const text = this.received.slice(from);
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return undefined;
        const head = text.slice(0, split);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        const body = text.slice(split + 4, split + 4 + length);
        return body.length === length ? { head, body, end: from + split + 4 + length } : undefined;
      },
      { timeoutMs, what, intervalMs: 20 },
    );
  }

  /**
   * Sends `text` one byte every `everyMs` until it is all sent or the server has closed the
   * connection: a client that holds the connection by being slow.
   */
  drip(text: string, everyMs: number): { stop(): void } {
    let at = 0;
    const timer = setInterval(() => {
      if (this.ended || at >= text.length) {
        clearInterval(timer);
        return;
      }
      this.socket.write(text[at]!);
      at += 1;
    }, everyMs);
    return { stop: () => clearInterval(timer) };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

async function startGatewayAlone(env: Record<string, string>): Promise<{ gateway: TestGateway; port: number; drop(): Promise<void> }> {
  const database = await createTestDatabase();
  const queuePrefix = newQueuePrefix();
  const gateway = await startTestGateway({
    databaseUrl: database.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix,
    grpcAddresses: NO_SERVICES,
    logs: new LogCapture(),
    env,
  });
  return {
    gateway,
    port: Number(new URL(gateway.baseUrl).port),
    drop: async () => {
      await database.drop();
      await deleteKeys(TEST_REDIS_URL, `${queuePrefix}:*`);
    },
  };
}

const NONCE_BODY = JSON.stringify({ address: '0x00000000000000000000000000000000000000a1' });
const nonceHead = (port: number) =>
  `POST /api/v1/auth/nonce HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${NONCE_BODY.length}\r\n\r\n`;

describe('a client too slow to send its request', () => {
  const HEADERS_TIMEOUT_MS = 600;
  const REQUEST_TIMEOUT_MS = 1_200;
  /** Far under Node's own timeouts (60 s for headers, 300 s for a request), far over the configured ones. */
  const BOUND_MS = 15_000;
  let alone: Awaited<ReturnType<typeof startGatewayAlone>>;
  const connections: RawConnection[] = [];

  beforeAll(async () => {
    alone = await startGatewayAlone({ HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  });
  afterAll(async () => {
    for (const connection of connections) connection.destroy();
    await alone?.gateway.stop();
    await alone?.drop();
  });

  async function slowClient(first: string, rest: string): Promise<{ answer: { head: string; body: string }; heldMs: number }> {
    const connection = await RawConnection.open(alone.port);
    connections.push(connection);
    const started = Date.now();
    connection.write(first);
    const drip = connection.drip(rest, 50);
    try {
      const answer = await connection.answer(BOUND_MS, 'the answer to the slow request');
      await connection.closed(BOUND_MS, 'the slow client’s connection to be closed');
      return { answer, heldMs: Date.now() - started };
    } finally {
      drip.stop();
    }
  }

  it('is answered 408 and cut off when its headers take longer than HEADERS_TIMEOUT_MS', async () => {
    // A header line that never ends: a byte every 50 ms, for longer than the bound.
    const { answer, heldMs } = await slowClient(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${alone.port}\r\n`, `X-Slow: ${'a'.repeat(1_000)}`);
    expect(answer.head).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(answer.body)).toEqual({ status: 408, code: 'REQUEST_TIMEOUT', message: expect.any(String), details: [] });
    expect(heldMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
  });

  it('is answered 408 and cut off when its body takes longer than REQUEST_TIMEOUT_MS', async () => {
    // The headers at once, then a 200-byte body a byte every 50 ms (10 s).
    const body = ' '.repeat(200);
    const head = `POST /api/v1/auth/nonce HTTP/1.1\r\nHost: 127.0.0.1:${alone.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { answer, heldMs } = await slowClient(head, body);
    expect(answer.head).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.body)).toEqual({ status: 408, code: 'REQUEST_TIMEOUT', message: expect.any(String), details: [] });
    expect(heldMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
  });

  it('leaves a client that sends in time alone, on a connection kept alive between requests', async () => {
    const connection = await RawConnection.open(alone.port);
    connections.push(connection);
    connection.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${alone.port}\r\n\r\n`);
    const first = await connection.answer(BOUND_MS, 'the first answer');
    expect(first.head).toMatch(/^HTTP\/1\.1 200 /);
    connection.write(nonceHead(alone.port) + NONCE_BODY);
    const second = await connection.answer(BOUND_MS, 'the second answer', first.end);
    expect(second.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(second.head.toLowerCase()).toContain('connection: keep-alive');
    expect(connection.ended).toBe(false);
  });
});

describe('a gateway stopping with keep-alive clients', () => {
  /** Far longer than the test may take: a stop that waits for the grace period fails it. */
  const GRACE_MS = 300_000;
  const BOUND_MS = 20_000;

  it('closes idle connections at once, answers the request in flight with Connection: close, and stops without waiting out the grace period', async () => {
    const { gateway, port, drop } = await startGatewayAlone({ SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const idle = await RawConnection.open(port);
    const busy = await RawConnection.open(port);
    let stopping: Promise<void> | undefined;
    try {
      // Both kept alive after an answer; then `busy` starts a request and sends half its body.
      for (const connection of [idle, busy]) {
        connection.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        expect((await connection.answer(BOUND_MS, 'a first answer')).head.toLowerCase()).toContain('connection: keep-alive');
      }
      // Expect: 100-continue, so that the client knows when the server has read the request's head:
      // from then on the request is in flight, and its connection not idle.
      const sent = busy.received.length;
      busy.write(nonceHead(port).replace('\r\n\r\n', '\r\nExpect: 100-continue\r\n\r\n'));
      await pollUntil(async () => busy.received.slice(sent).startsWith('HTTP/1.1 100 Continue\r\n\r\n'), {
        timeoutMs: BOUND_MS,
        what: '100 Continue',
      });
      const before = busy.received.length;
      busy.write(NONCE_BODY.slice(0, 10));

      let stopped = false;
      stopping = gateway.stop().then(() => {
        stopped = true;
      });
      // The gateway stops accepting, and the idle connection is closed without waiting.
      await pollUntil(
        () =>
          new Promise<boolean>((resolve) => {
            const probe = connect(port, '127.0.0.1');
            probe.once('connect', () => {
              probe.destroy();
              resolve(false);
            });
            probe.once('error', () => resolve(true));
          }),
        { timeoutMs: BOUND_MS, what: 'the gateway to stop accepting connections' },
      );
      await idle.closed(BOUND_MS, 'the idle keep-alive connection to be closed');
      expect(busy.ended).toBe(false);
      expect(stopped).toBe(false);

      // The request in flight is answered, telling the client the connection ends there; then it does.
      busy.write(NONCE_BODY.slice(10));
      const answer = await busy.answer(BOUND_MS, 'the answer to the request in flight', before);
      expect(answer.head).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer.head.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(answer.body)).toMatchObject({ nonce: expect.any(String) });
      await busy.closed(BOUND_MS, 'the connection of the answered request to be closed');
      await pollUntil(async () => stopped, { timeoutMs: BOUND_MS, what: 'the gateway to finish stopping' });
    } finally {
      idle.destroy();
      busy.destroy();
      await stopping;
      await drop();
    }
  }, 60_000);
});

/**
 * The ports are bound before any connection is opened: on Linux an outgoing connection (to
 * PostgreSQL, Redis, a service) takes a local port from the ephemeral range, and one opened during
 * start-up could take the gateway's port just before it binds it.
 */
describe('a gateway starting', () => {
  const BOUND_MS = 15_000;
  const UNREACHABLE_DATABASE = 'postgres://postgres@127.0.0.1:1/nowhere';
  const start = (databaseUrl: string, env: Record<string, string>) =>
    startTestGateway({
      databaseUrl,
      redisUrl: TEST_REDIS_URL,
      queuePrefix: newQueuePrefix(),
      grpcAddresses: NO_SERVICES,
      logs: new LogCapture(),
      env,
    });

  it('binds PORT first: a taken PORT is reported even when PostgreSQL cannot be reached, and METRICS_PORT is given back', async () => {
    const holder = createServer();
    const port = await freePort();
    const metricsPort = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      await expect(start(UNREACHABLE_DATABASE, { PORT: String(port), METRICS_PORT: String(metricsPort) })).rejects.toThrow(
        new ConfigError(`127.0.0.1:${port} is already in use by another process: set PORT to a free port, or stop that process`),
      );
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    // Failing on PostgreSQL after binding, it gives both ports back.
    await expect(start(UNREACHABLE_DATABASE, { PORT: String(port), METRICS_PORT: String(metricsPort) })).rejects.toThrow(/ECONNREFUSED/);
    expect(await portIsFree(port)).toBe(true);
    expect(await portIsFree(metricsPort)).toBe(true);
  });

  it('answers 503 with Retry-After while it migrates, then serves', async () => {
    const database = await createTestDatabase();
    // Another replica migrating the access schema: this one waits for the migration lock (migrate.ts).
    const replica = new pg.Client({ connectionString: database.url });
    await replica.connect();
    await replica.query("SELECT pg_advisory_lock(hashtext('migrate:access'))");
    const port = await freePort();
    let gateway: TestGateway | undefined;
    try {
      const starting = start(database.url, { PORT: String(port) });
      const early = await pollUntil(() => fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined), {
        timeoutMs: BOUND_MS,
        what: 'the starting gateway to answer',
      });
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(early.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await early.json()).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: 'the gateway is starting; try again shortly',
        details: [],
      });

      await replica.query("SELECT pg_advisory_unlock(hashtext('migrate:access'))");
      gateway = await starting;
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await replica.end();
      await gateway?.stop();
      await database.drop();
    }
  });
});
