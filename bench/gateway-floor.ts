/**
 * The lookup's floor in the gateway's place (issue 27 §1): a bare node:http server, in a process of
 * its own, that answers `GET /v1/audiences/audience-segments/user` with the gateway's own pieces for
 * the work itself (the generated gRPC client with its deadline, the same batching loader, the same
 * presenter) and writes the same JSON with the API's headers, but has no Express, no authentication
 * (the project is fixed), no validation beyond the identifier's canonical spelling, no request id,
 * no metrics and no logging. What the gateway spends per lookup above this process is what Express
 * and our middleware cost.
 *
 * Started by the lookup phase (startGatewayFloor), or standalone against a running stack:
 *   FLOOR_AUDIENCE_ADDR=127.0.0.1:50051 FLOOR_PROJECT_ID=<uuid> FLOOR_PORT=8099 node dist/bench/gateway-floor.js
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { AudienceServiceClient } from '../gen/referral/audience/v1/audience';
import { API_SECURITY_HEADERS } from '../gateway/http/security-headers';
import { presentUserAudience } from '../gateway/routes/audience/audience.presenters';
import { createUserAudienceLoader } from '../gateway/user-audience-loader';
import { createGrpcClient } from '../services/platform/grpc/client';
import { canonicalSpellingOfAnyType } from '../services/rules/identifiers';

/** The gateway's default deadline for gRPC calls (GRPC_TIMEOUT_MS). */
const GRPC_TIMEOUT_MS = 5_000;

function serve(audienceAddress: string, projectId: string, port: number): Promise<http.Server> {
  const audience = createGrpcClient(AudienceServiceClient, audienceAddress, GRPC_TIMEOUT_MS);
  const loader = createUserAudienceLoader(audience.call);
  const headers = Object.entries(API_SECURITY_HEADERS);
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    const json = JSON.stringify(body);
    res.writeHead(status, [...headers, ['Content-Type', 'application/json; charset=utf-8'], ['Content-Length', String(Buffer.byteLength(json))]]);
    res.end(json);
  };
  const server = http.createServer((req, res) => {
    const query = new URLSearchParams((req.url ?? '').slice((req.url ?? '').indexOf('?') + 1));
    const identifier = query.get('user_identifier');
    const identifierType = query.get('user_identifier_type');
    if (!identifier || !identifierType) {
      answer(res, 400, { error: { code: 'VALIDATION_FAILED', message: 'user_identifier and user_identifier_type are required' } });
      return;
    }
    loader.load({ projectId, identifier: canonicalSpellingOfAnyType(identifier), identifierType }).then(
      (audiences) => answer(res, 200, { results: audiences.map(presentUserAudience) }),
      (error: unknown) => answer(res, 500, { error: { code: 'INTERNAL', message: String(error) } }),
    );
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

export interface GatewayFloor {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the floor in a child process (its CPU apart from the bench's own) and waits until it listens. */
export function startGatewayFloor(audienceAddress: string, projectId: string): Promise<GatewayFloor> {
  const child = fork(__filename, [], {
    env: { ...process.env, FLOOR_AUDIENCE_ADDR: audienceAddress, FLOOR_PROJECT_ID: projectId, FLOOR_PORT: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the gateway floor exited (${code}) before it listened`)));
    child.once('message', (message: { port: number }) => {
      child.removeAllListeners('exit');
      resolve({
        baseUrl: `http://127.0.0.1:${message.port}`,
        pid: child.pid!,
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

if (require.main === module) {
  const { FLOOR_AUDIENCE_ADDR, FLOOR_PROJECT_ID, FLOOR_PORT } = process.env;
  if (!FLOOR_AUDIENCE_ADDR || !FLOOR_PROJECT_ID) throw new Error('set FLOOR_AUDIENCE_ADDR and FLOOR_PROJECT_ID');
  void serve(FLOOR_AUDIENCE_ADDR, FLOOR_PROJECT_ID, Number(FLOOR_PORT ?? 0)).then((server) => {
    const { port } = server.address() as { port: number };
    if (process.send) process.send({ port });
    else process.stdout.write(`gateway floor listening on http://127.0.0.1:${port}\n`);
    process.once('SIGTERM', () => process.exit(0));
  });
}
