import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}

/** What the receiver does with a request: answer a status, or hold it open (never answer). */
export type Behaviour = { status: number } | 'hang';

/**
 * A real HTTP endpoint on 127.0.0.1 for webhook tests: records every request (per path) and answers
 * as the test says, request by request (the last behaviour repeats; 200 by default).
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  private readonly plans = new Map<string, Behaviour[]>();
  private readonly held = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** How the next requests to `path` are answered, in order; the last one repeats. */
  plan(path: string, behaviours: Behaviour[]): void {
    this.plans.set(path, [...behaviours]);
  }

  at(path: string): ReceivedDelivery[] {
    return this.received.filter((request) => request.path === path);
  }

  /** Answers every request being held with this status. */
  releaseHeld(status = 200): void {
    for (const res of this.held) if (!res.writableEnded) res.writeHead(status).end();
    this.held.clear();
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
    this.received.push({ path, headers, body, json: JSON.parse(body) });
    const plan = this.plans.get(path) ?? [];
    const behaviour = (plan.length > 1 ? plan.shift() : plan[0]) ?? { status: 200 };
    if (behaviour === 'hang') {
      this.held.add(res);
      return;
    }
    res.writeHead(behaviour.status).end();
  }
}

/**
 * Verifies a delivery as the Standard Webhooks specification says a receiver should: the key is the
 * base64 after `whsec_`; the signed content is `<webhook-id>.<webhook-timestamp>.<raw body>`; the
 * header lists space-separated `v1,<base64 HMAC-SHA256>` signatures, any of which may match.
 * Written here from the specification, independently of the service's code.
 */
export function verifyStandardWebhook(secret: string, headers: Record<string, string>, body: string): boolean {
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
