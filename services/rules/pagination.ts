import type { PageInfo, PageRequest } from '../../gen/referral/common/v1/common';
import { InvalidArgumentError } from './errors';

/**
 * The standard list (docs/api-conventions.md): page from 1, page_size 1..100, default 25. The one place these
 * limits are written: the gateway's query schemas refuse past them, the services clamp to them.
 */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
/** The highest page number the HTTP API accepts (an offset past it is no list anyone reads). */
export const MAX_PAGE = 1_000_000;

export interface Page {
  page: number;
  pageSize: number;
  offset: number;
}

/** Normalises a page request; callers at the HTTP edge have already refused out-of-range values. */
export function toPage(request?: Partial<PageRequest>): Page {
  const page = request?.page && request.page > 0 ? Math.floor(request.page) : 1;
  const rawSize = request?.pageSize && request.pageSize > 0 ? Math.floor(request.pageSize) : DEFAULT_PAGE_SIZE;
  const pageSize = Math.min(rawSize, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** Where a page stands in its list, as every list reply carries it (referral.common.v1.PageInfo). */
export function pageInfo(page: Pick<Page, 'page' | 'pageSize'>, total: number | bigint): PageInfo {
  return { totalResults: String(total), page: page.page, pageSize: page.pageSize };
}

/** Opaque cursors: base64url JSON that the client hands back unchanged. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, isValid: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!isValid(value)) {
    throw new InvalidArgumentError('INVALID_CURSOR', 'cursor is not one this service issued', [{ field: 'cursor', reason: 'unrecognised cursor' }]);
  }
  return value;
}
