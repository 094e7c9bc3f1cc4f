/**
 * The access rules the routes declare (AuthRequirement, gateway/auth/caller.ts), each named once so
 * that a rule means the same wherever it is used. A rule only one file needs (the claim checks'
 * user_or_session rules, the audience entry's admin-or-service) stays beside its routes.
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

/** The integrator's backend or an admin (the dashboard), in the key's own project: writes both may make. */
export const serviceOrAdmin = { kind: 'api_key', roles: ['service_role', 'admin'], project: 'key' } as const;

/** Any key of a project (service_role, admin, read_only), in the key's own project. */
export const anyProjectKey = { kind: 'api_key', roles: ['service_role', 'admin', 'read_only'], project: 'key' } as const;
