import { ApiError } from '../api/client';

/** The project pays no points (it has no point currency): a points read answers 404 POINT_CURRENCY_NOT_FOUND, shown as nothing. */
export function noPoints(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'POINT_CURRENCY_NOT_FOUND';
}
