import { type ComponentType, lazy } from 'react';

/**
 * A page loaded when first shown, as a chunk of its own (React.lazy over a module's named export):
 * the first screen downloads only its own code. A <Suspense> above it (AppShell, main.tsx) says it is loading.
 */
export function lazyPage<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) {
  return lazy(async () => ({ default: (await load())[name] }));
}
