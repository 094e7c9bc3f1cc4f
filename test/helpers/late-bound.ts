/** An object standing for the one `target` answers when it is used (reads, keys, spreads). */
export function lateBound<T extends object>(target: () => T): T {
  return new Proxy({} as T, {
    get: (_stand, member) => Reflect.get(target(), member),
    has: (_stand, member) => Reflect.has(target(), member),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_stand, member) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), member);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
