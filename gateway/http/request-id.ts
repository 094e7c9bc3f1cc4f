import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { isValidRequestId, runWithRequestContext } from '../../services/platform/request-context';

/**
 * Takes the caller's X-Request-Id when it is a sane token, otherwise makes one; echoes it back
 * and runs the rest of the request inside its context, so every log line and gRPC call carries it.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = isValidRequestId(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    runWithRequestContext({ requestId: id }, next);
  };
}
