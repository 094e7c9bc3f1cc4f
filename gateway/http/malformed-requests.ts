import { createServer, maxHeaderSize, type RequestListener, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../services/platform/logger';
import { type ErrorBody, HttpError, toErrorBody } from './errors';
import { API_SECURITY_HEADERS } from './security-headers';

/** How long a refused connection stays open for the peer to read the answer. */
const CLOSE_GRACE_MS = 2_000;

const MALFORMED: ErrorBody = {
  status: 400,
  code: 'MALFORMED_REQUEST',
  message: 'the request is not valid HTTP/1.1 (request line, URL or headers)',
  details: [],
};

/** What Node's HTTP parser refuses before any route (or Express) sees the request. */
function answerForParserError(code: string | undefined): ErrorBody {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
        message: `the request line and headers together exceed ${maxHeaderSize / 1024} KB; shorten the query string or the headers`,
        details: [],
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'the chunk extensions of the request body are too large', details: [] };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time', details: [] };
    default:
      return MALFORMED;
  }
}

/** An answer written straight to the socket (there is no request object), and the connection closed. */
function writeToSocket(socket: Duplex, body: ErrorBody, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  const extra = Object.entries({ ...API_SECURITY_HEADERS, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      json,
  );
  // The peer closes once it has read the answer; one that does not is cut off. (Closing at once could
  // reset the connection before the peer reads the answer, while it is still sending the refused request.)
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

function writeResponse(res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const json = JSON.stringify(body);
  res.writeHead(body.status, {
    ...API_SECURITY_HEADERS,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    Connection: 'close',
  });
  res.end(json);
}

/** How long clients may take to send a request (gateway/config.ts). */
export interface RequestTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Longer than typical load balancer idle timeouts, so the balancer closes an idle connection first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * How often Node looks for requests past their timeouts: a tenth of the shorter one, so a slow
 * client is cut off at most 10% late (Node's default, 30 s, would let a 30 s timeout run to 60 s).
 */
export function connectionsCheckingInterval(timeouts: RequestTimeouts): number {
  return Math.max(50, Math.min(30_000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 10)));
}

/** The application as the server calls it: `next` answers what it leaves unanswered (an error, or a URL it cannot parse). */
export type GatewayRequestListener = (req: Parameters<RequestListener>[0], res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The gateway's HTTP server. Node answers what its parser refuses (headers over 16 KB, a malformed
 * request line) with a bare status and an empty body, drops CONNECT, and Express answers a URL it
 * cannot parse with an HTML page: here each is answered in the standard error body instead, so
 * every error of the API has one shape. A client slower than the timeouts to send its request (a
 * byte a second) is answered 408 REQUEST_TIMEOUT and its connection closed.
 */
export function createGatewayServer(app: GatewayRequestListener, logger: Logger, timeouts: RequestTimeouts): Server {
  const options = {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingInterval(timeouts),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  };
  const server = createServer(options, (req, res) => {
    // Express calls this only when no route and no error handler answered: a URL its router cannot parse.
    app(req, res, (error?: unknown) => {
      if (!error) {
        writeResponse(res, MALFORMED);
        return;
      }
      const { body, internal } = toErrorBody(error);
      if (internal) logger.error({ err: error, method: req.method }, 'request failed outside the routes');
      writeResponse(res, body, error instanceof HttpError ? error.headers : {});
    });
  });

  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // More bytes of a refused request come back here as errors: the answer is already on its way.
    if (answered.has(socket)) return;
    // As Node does: write only when nothing of a response is under way on this connection.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const body = answerForParserError(error.code);
    logger.info({ status: body.status, parser_error: error.code }, 'request refused by the HTTP parser');
    writeToSocket(socket, body);
  });

  server.on('connect', (_req, socket: Duplex) => {
    writeToSocket(socket, { status: 405, code: 'METHOD_NOT_ALLOWED', message: 'CONNECT is not supported: this is not a proxy', details: [] });
  });
  return server;
}
