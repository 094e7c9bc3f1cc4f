import { z } from 'zod';
import type { PageInfo } from '../../gen/referral/common/v1/common';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from '../../services/rules/pagination';
import { count, required } from './present';

/** The one list contract (docs/api-conventions.md), with the limits the services use (services/rules/pagination.ts). */
export const pageQuery = {
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1).describe('Page number, from 1'),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).describe(`Results per page, 1 to ${MAX_PAGE_SIZE}`),
};

export const cursorQuery = {
  cursor: z.string().min(1).max(512).optional().describe('Opaque cursor from a previous response; takes precedence over page'),
};

export function listSchema<T extends z.ZodType>(item: T, withCursor = false) {
  return z.object({
    results: z.array(item),
    total_results: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    ...(withCursor ? { next_cursor: z.string().nullable() } : {}),
  });
}

/** The page a list query asks for (pageQuery), as every service takes it (referral.common.v1.PageRequest). */
export function pageRequest(query: { page: number; page_size: number }) {
  return { page: query.page, pageSize: query.page_size };
}

/** A list reply as every service answers it (referral.common.v1.PageInfo beside the results). */
export interface ListSource<T> {
  results: T[];
  pageInfo?: PageInfo | undefined;
  nextCursor?: string | undefined;
}

/** A service's list reply in the standard JSON shape. */
export function listBody<T, R>(source: ListSource<T>, present: (item: T, index: number) => R, withCursor = false) {
  const info = required(source.pageInfo, 'page_info');
  return {
    results: source.results.map(present),
    total_results: count(info.totalResults, 'total_results'),
    page: info.page,
    page_size: info.pageSize,
    ...(withCursor ? { next_cursor: source.nextCursor ?? null } : {}),
  };
}
