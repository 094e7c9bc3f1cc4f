import type { ServiceClients } from '../../clients';
import { listBody, pageRequest } from '../../http/list';
import { presentSegment } from './audience.presenters';

/**
 * One page of a project's segments, oldest first. The same listing answers admin and read_only
 * keys under the project's path and service keys under /v1: only how the project is chosen differs.
 */
export const listSegments =
  (clients: ServiceClients) =>
  async ({ query, caller }: { query: { page: number; page_size: number }; caller: { projectId: string } }) => {
    const page = await clients.audience.listSegments({ projectId: caller.projectId, page: pageRequest(query) });
    return { status: 200 as const, body: listBody(page, presentSegment) };
  };
