import type { z } from 'zod';
import type { ServiceClients } from '../../clients';
import { presentBadge } from './audience.presenters';
import type { badgeBody, updateBadgeBody } from './audience.schemas';

/**
 * The badge handlers the /v1 API (service keys, the key's project, :segmentId) and the dashboard
 * (admin keys, the path's project, :audienceId) share: only how the project and segment are named differs.
 */

type Caller = { caller: { projectId: string } };

export const createBadge =
  <P>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({ params, body, caller }: Caller & { params: P; body: z.infer<typeof badgeBody> }) => {
    const badge = await clients.audience.createBadge({
      projectId: caller.projectId,
      segmentId: segmentIdOf(params),
      badge: { name: body.name, description: body.description ?? undefined, imageUrl: body.image_url ?? undefined },
    });
    return { status: 201 as const, body: presentBadge(badge) };
  };

export const updateBadge =
  <P>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({ params, body, caller }: Caller & { params: P; body: z.infer<typeof updateBadgeBody> }) => {
    const badge = await clients.audience.updateBadge({
      projectId: caller.projectId,
      segmentId: segmentIdOf(params),
      updateMask: Object.keys(body),
      badge: { name: body.name ?? '', description: body.description ?? undefined, imageUrl: body.image_url ?? undefined },
    });
    return { status: 200 as const, body: presentBadge(badge) };
  };

export const deleteBadge =
  <P>(clients: ServiceClients, segmentIdOf: (params: P) => string) =>
  async ({ params, caller }: Caller & { params: P }) => {
    await clients.audience.deleteBadge({ projectId: caller.projectId, segmentId: segmentIdOf(params) });
    return { status: 204 as const };
  };
