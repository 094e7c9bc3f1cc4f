import type { Access } from '../../gateway/openapi/document';

/** One operation of /openapi.json, as the tests that walk every operation read it. */
export interface DocumentedOperation {
  /** `GET /api/v1/projects/{projectId}/audiences` */
  key: string;
  method: string;
  /** OpenAPI syntax: `{param}`. */
  path: string;
  operation: Record<string, any>;
  /** Who may call it, as the document states (gateway/openapi/document.ts); undefined when it does not. */
  access: Access | undefined;
  pathParameters: Array<{ name: string; example: string | undefined }>;
  hasBody: boolean;
  /** The statuses it documents. */
  statuses: number[];
}

export function documentedOperations(document: { paths: Record<string, Record<string, any>> }): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      operation,
      access: operation['x-access'],
      pathParameters: (operation.parameters ?? [])
        .filter((parameter: { in: string }) => parameter.in === 'path')
        .map((parameter: { name: string; schema?: { examples?: unknown[] } }) => {
          const example = parameter.schema?.examples?.[0];
          return { name: parameter.name, example: typeof example === 'string' ? example : undefined };
        }),
      hasBody: operation.requestBody !== undefined,
      statuses: Object.keys(operation.responses ?? {}).map(Number),
    })),
  );
}

/** Runs the tasks with at most `concurrency` under way at once; their results in task order. */
export async function runLimited<T>(tasks: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}
