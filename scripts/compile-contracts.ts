/**
 * Compiles contracts/ with solc-js (the npm `solc` package, pinned) into ABI + bytecode artifacts.
 *
 * Compilation takes under two seconds and is deterministic, so nothing runs it ahead of time:
 * `contractArtifacts()` compiles on first use and keeps the result in artifacts/contracts.json
 * (git-ignored), keyed by a hash of every input, so later calls just read the file.
 * `node dist/scripts/compile-contracts.js` (after `npm run build`) writes the same file by hand.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem' with { 'resolution-mode': 'import' };

export interface ContractArtifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  /** Creation bytecode; '0x' for interfaces. */
  bytecode: Hex;
}

interface ArtifactsFile {
  inputHash: string;
  solcVersion: string;
  contracts: Record<string, ContractArtifact>;
}

/** Fixed so that every machine builds the same bytecode; cancun is what the chains we target run. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'contracts'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no project root with contracts/ above ${from}`);
  }
}

const ROOT = findRoot(__dirname);
const CONTRACTS_DIR = path.join(ROOT, 'contracts');
export const ARTIFACTS_FILE = path.join(ROOT, 'artifacts', 'contracts.json');

function solidityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return solidityFiles(full);
      return entry.name.endsWith('.sol') ? [full] : [];
    })
    .sort();
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
}

/** Sources keyed as solc sees them ("contracts/ClaimManager.sol"), and the hash of every input. */
function compilerInputs(): { sources: Record<string, { content: string }>; inputHash: string } {
  const sources: Record<string, { content: string }> = {};
  for (const file of solidityFiles(CONTRACTS_DIR)) {
    sources[path.relative(ROOT, file).split(path.sep).join('/')] = { content: readFileSync(file, 'utf8') };
  }
  const inputHash = createHash('sha256')
    .update(JSON.stringify({ sources, settings: SETTINGS, solc: packageVersion('solc'), openzeppelin: packageVersion('@openzeppelin/contracts') }))
    .digest('hex');
  return { sources, inputHash };
}

/** Imports such as "@openzeppelin/contracts/..." resolve from node_modules, like Node resolves packages. */
function readImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(importPath, { paths: [ROOT] }), 'utf8') };
  } catch {
    return { error: `cannot resolve import ${importPath}` };
  }
}

interface SolcOutput {
  errors?: Array<{ severity: 'error' | 'warning' | 'info'; formattedMessage: string; sourceLocation?: { file: string } }>;
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

export async function compileContracts(): Promise<ArtifactsFile> {
  const { sources, inputHash } = compilerInputs();
  const solc = (await import('solc')).default;
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  // Our own warnings fail the build too: the reference contract stays warning-free.
  const problems = (output.errors ?? []).filter(
    (problem) => problem.severity === 'error' || (problem.severity === 'warning' && problem.sourceLocation?.file.startsWith('contracts/')),
  );
  if (problems.length > 0) throw new Error(`solc ${solc.version()}:\n${problems.map((p) => p.formattedMessage).join('\n')}`);

  const contracts: Record<string, ContractArtifact> = {};
  for (const [sourceName, byName] of Object.entries(output.contracts ?? {})) {
    if (!(sourceName in sources)) continue; // OpenZeppelin's own contracts
    for (const [contractName, compiled] of Object.entries(byName)) {
      if (contracts[contractName]) throw new Error(`two contracts named ${contractName}`);
      contracts[contractName] = { contractName, sourceName, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
    }
  }
  return { inputHash, solcVersion: solc.version() as string, contracts };
}

function readCached(inputHash: string): ArtifactsFile | undefined {
  try {
    const cached = JSON.parse(readFileSync(ARTIFACTS_FILE, 'utf8')) as ArtifactsFile;
    return cached.inputHash === inputHash ? cached : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name and renamed, so a parallel test worker never reads half a file. */
function writeArtifacts(artifacts: ArtifactsFile): void {
  mkdirSync(path.dirname(ARTIFACTS_FILE), { recursive: true });
  const temporary = `${ARTIFACTS_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(artifacts, null, 2)}\n`);
  renameSync(temporary, ARTIFACTS_FILE);
}

let loaded: Promise<Record<string, ContractArtifact>> | undefined;

/** Every contract in contracts/, compiled on first use and cached until a source or setting changes. */
export function contractArtifacts(): Promise<Record<string, ContractArtifact>> {
  loaded ??= (async () => {
    const cached = readCached(compilerInputs().inputHash);
    if (cached) return cached.contracts;
    const compiled = await compileContracts();
    writeArtifacts(compiled);
    return compiled.contracts;
  })();
  return loaded;
}

export async function contractArtifact(name: string): Promise<ContractArtifact> {
  const artifact = (await contractArtifacts())[name];
  if (!artifact) throw new Error(`no contract ${name} in contracts/`);
  return artifact;
}

if (require.main === module) {
  const started = Date.now();
  compileContracts()
    .then((compiled) => {
      writeArtifacts(compiled);
      const names = Object.values(compiled.contracts)
        .filter((c) => c.bytecode !== '0x')
        .map((c) => c.contractName);
      console.log(
        `compiled ${names.join(', ')} with solc ${compiled.solcVersion} in ${Date.now() - started} ms -> ${path.relative(ROOT, ARTIFACTS_FILE)}`,
      );
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
