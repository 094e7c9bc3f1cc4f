/**
 * The access rules routes declare (gateway/auth/caller.ts), named once so that a rule reads the same
 * wherever it is used and the access matrix (test/gateway/access-matrix.test.ts) sees a few shared rules.
 */

/** The project's admin keys, the project named by the path. */
export const projectAdmin = { kind: 'api_key', roles: ['admin'], project: 'path' } as const;

/** Admin and read-only keys of the project named by the path: administration screens that only read. */
export const projectReader = { kind: 'api_key', roles: ['admin', 'read_only'], project: 'path' } as const;

/** The signed-in wallet (Sign-In with Ethereum session), in the project named by the path: the affiliate portal. */
export const walletSession = { kind: 'session', project: 'path' } as const;

/** The integrator's backend (service_role keys), in the key's own project. */
export const serviceRole = { kind: 'api_key', roles: ['service_role'], project: 'key' } as const;

/** The integrator's backend and read-only keys, in the key's own project. */
export const serviceReader = { kind: 'api_key', roles: ['service_role', 'read_only'], project: 'key' } as const;

/** Any key of a project (service_role, admin, read_only), in the key's own project. */
export const anyProjectKey = { kind: 'api_key', roles: ['service_role', 'admin', 'read_only'], project: 'key' } as const;
