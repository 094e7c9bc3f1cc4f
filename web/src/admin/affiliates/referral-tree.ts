import type { ApiResult } from '../../api/client';

export type ReferralTreeNode = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'get'>['referral_tree']['nodes'][number];

/** A downline affiliate with the affiliates it referred below it. */
export interface NestedNode {
  node: ReferralTreeNode;
  children: NestedNode[];
}

/**
 * The API's flat downline (by level, then highest volume first) nested under each node's parent,
 * keeping that order among siblings. A node whose parent is not listed (the list stops at 200 nodes)
 * is shown at the top, so nothing listed is lost.
 */
export function nestReferralTree(nodes: readonly ReferralTreeNode[]): NestedNode[] {
  const byId = new Map<string, NestedNode>();
  for (const node of nodes) byId.set(node.affiliate_id, { node, children: [] });
  const roots: NestedNode[] = [];
  for (const node of nodes) {
    const nested = byId.get(node.affiliate_id)!;
    const parent = node.level > 1 ? byId.get(node.parent_affiliate_id) : undefined;
    if (parent && parent !== nested) parent.children.push(nested);
    else roots.push(nested);
  }
  return roots;
}
