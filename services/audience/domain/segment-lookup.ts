import { NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import type { SegmentRecord, SegmentRepository } from '../repositories/segment.repository';

export function segmentNotFound(): NotFoundError {
  return new NotFoundError('AUDIENCE_NOT_FOUND', 'no audience with this id in this project');
}

/** The segment, scoped to its project; a foreign or malformed id is simply not found. */
export async function requireSegment(segments: SegmentRepository, projectId: string, segmentId: string): Promise<SegmentRecord> {
  const segment = isUuid(segmentId) ? await segments.findById(projectId, segmentId) : undefined;
  if (!segment) throw segmentNotFound();
  return segment;
}

export async function requireSegmentExists(segments: SegmentRepository, projectId: string, segmentId: string): Promise<void> {
  if (!isUuid(segmentId) || !(await segments.exists(projectId, segmentId))) throw segmentNotFound();
}
