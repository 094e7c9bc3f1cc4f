import { z } from 'zod';

/** The one list contract (DESIGN.md §3): page from 1, page_size 1..100, default 25. */
export const pageQuery = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).describe('Page number, from 1'),
  page_size: z.coerce.number().int().min(1).max(100).default(25).describe('Results per page, 1 to 100'),
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

export interface ListSource<T> {
  results: T[];
  totalResults: string | number;
  page: number;
  pageSize: number;
  nextCursor?: string | undefined;
}

/** A service's list response in the standard JSON shape. */
export function listBody<T, R>(source: ListSource<T>, present: (item: T) => R, withCursor = false) {
  return {
    results: source.results.map(present),
    total_results: Number(source.totalResults),
    page: source.page,
    page_size: source.pageSize,
    ...(withCursor ? { next_cursor: source.nextCursor ?? null } : {}),
  };
}
