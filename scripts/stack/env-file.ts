import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

export interface EnvFileLoaded {
  /** Variables taken from the file. */
  applied: string[];
  /** Variables the file also sets but the environment already had: the environment wins. */
  kept: string[];
}

/**
 * Reads a .env file (Node's own parser: NAME=value lines, # comments, quotes) into `env`, without
 * replacing a variable that is already set, so `PORT=9000 npm start` beats the file. Returns
 * undefined when there is no such file.
 */
export function loadEnvFile(file: string, env: NodeJS.ProcessEnv = process.env): EnvFileLoaded | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const loaded: EnvFileLoaded = { applied: [], kept: [] };
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value === undefined) continue;
    if (env[name] === undefined) {
      env[name] = value;
      loaded.applied.push(name);
    } else {
      loaded.kept.push(name);
    }
  }
  return loaded;
}
