/** Two keys, so tests see which one sealed a value; the second is the active one. */
export const TEST_TAX_KEYS = {
  spec: `test2025:${Buffer.alloc(32, 25).toString('base64')},test2026:${Buffer.alloc(32, 26).toString('base64')}`,
  active: 'test2026',
};
