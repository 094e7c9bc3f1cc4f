/**
 * Writes contracts/generated/claim-manager.ts from the compiled ClaimManager (compile-contracts.ts):
 * its ABI, the EIP-712 types of a voucher and the ClaimCheck struct's TypeScript shape. That module
 * is the one copy every caller imports (the claim service, the web portal, the tests), so the
 * struct is written out once, by the compiler.
 *
 * `npm run contracts:generate` rewrites it after a change of contracts/; the module is checked in so
 * that the web build and the services need no compiler, and
 * test/chain/claim-manager-module.test.ts fails while it differs from what this script renders.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contractArtifact } from './compile-contracts';

export const CONTRACT_MODULE_FILE = path.join(__dirname, '..', 'contracts', 'generated', 'claim-manager.ts');
const CLAIM_MANAGER_SOURCE = path.join(__dirname, '..', 'contracts', 'ClaimManager.sol');

interface AbiParameter {
  name: string;
  type: string;
  internalType?: string;
  components?: AbiParameter[];
}

/** The field the signatures travel in: the struct carries it, the signed data cannot. */
const SIGNATURES_FIELD = 'signatures';

/** TypeScript of one ABI value type, as viem reads and writes it (enums are their uint8). */
function typeScriptOf(type: string): string {
  if (type.endsWith('[]')) return `readonly ${typeScriptOf(type.slice(0, -2))}[]`;
  if (type === 'address' || /^bytes\d*$/.test(type)) return '`0x${string}`';
  if (type === 'bool') return 'boolean';
  const bits = /^u?int(\d*)$/.exec(type)?.[1];
  if (bits !== undefined) return Number(bits || 256) <= 48 ? 'number' : 'bigint';
  throw new Error(`no TypeScript type for the ABI type ${type}`);
}

/** The ClaimCheck struct: the components of `claim(ClaimCheck[])`'s one parameter. */
function claimCheckComponents(abi: readonly unknown[]): AbiParameter[] {
  const claim = (abi as Array<{ type: string; name?: string; inputs?: AbiParameter[] }>).find(
    (entry) => entry.type === 'function' && entry.name === 'claim',
  );
  const parameter = claim?.inputs?.[0];
  if (!parameter?.components || parameter.internalType !== 'struct IFuulManager.ClaimCheck[]') {
    throw new Error('ClaimManager has no claim(IFuulManager.ClaimCheck[]) to read the struct from');
  }
  return parameter.components;
}

/**
 * Every field but `signatures`, in struct order: what the contract hashes. The contract's own
 * CLAIM_CHECK_TYPEHASH must name exactly these, or a voucher signed here would never verify there.
 */
function eip712Fields(struct: AbiParameter[]): Array<{ name: string; type: string }> {
  const fields = struct.filter((field) => field.name !== SIGNATURES_FIELD).map(({ name, type }) => ({ name, type }));
  const encodedType = `ClaimCheck(${fields.map(({ name, type }) => `${type} ${name}`).join(',')})`;
  if (!readFileSync(CLAIM_MANAGER_SOURCE, 'utf8').includes(`"${encodedType}"`)) {
    throw new Error(`contracts/ClaimManager.sol's CLAIM_CHECK_TYPEHASH is not keccak256("${encodedType}"): the struct and the typehash disagree`);
  }
  return fields;
}

/** Stands in the ABI for a value the module declares once under a name (the ClaimCheck struct's components). */
class Named {
  constructor(readonly name: string) {}
}

/** The ABI with every copy of `value` (compared as JSON) replaced by its name. */
function naming(abi: unknown, value: unknown, name: string): unknown {
  const json = JSON.stringify(value);
  const walk = (node: unknown): unknown => {
    if (JSON.stringify(node) === json) return new Named(name);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item)]));
    return node;
  };
  return walk(abi);
}

/** A value as TypeScript source: on one line when it fits, else one item per line. */
function render(value: unknown, indent = ''): string {
  if (value instanceof Named) return value.name;
  const inline = renderInline(value);
  if (indent.length + inline.length <= 120 || value === null || typeof value !== 'object') return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => `${inner}${render(item, inner)},`).join('\n')}\n${indent}]`;
  return `{\n${Object.entries(value)
    .map(([key, item]) => `${inner}${renderKey(key)}: ${render(item, inner)},`)
    .join('\n')}\n${indent}}`;
}

function renderInline(value: unknown): string {
  if (value instanceof Named) return value.name;
  if (Array.isArray(value)) return `[${value.map(renderInline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${renderKey(key)}: ${renderInline(item)}`).join(', ')} }`;
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

function renderKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : renderInline(key);
}

/** The module's source, rendered from the compiled contract (compiled on first use, then cached). */
export async function renderContractModule(): Promise<string> {
  const { abi, sourceName } = await contractArtifact('ClaimManager');
  const struct = claimCheckComponents(abi);
  const fields = eip712Fields(struct);
  const structType = struct.map((field) => `  ${field.name}: ${typeScriptOf(field.type)};`).join('\n');
  return `// Generated by scripts/write-contract-module.ts from ${sourceName}: do not edit.
// After a change of contracts/, run \`npm run contracts:generate\` (test/chain/claim-manager-module.test.ts
// fails while this file is stale).

/** IFuulManager.ClaimCheck's fields as the ABI writes them, once for every function of the ABI that takes the struct. */
const claimCheckComponents = ${render(struct)} as const;

/** ClaimManager's ABI, as solc compiles it: typed for viem (\`claim\`, \`Claimed\`, \`deposit\`, its errors...). */
export const claimManagerAbi = ${render(naming(abi, struct, 'claimCheckComponents'))} as const;

/**
 * The EIP-712 types of a voucher: every field of IFuulManager.ClaimCheck but \`${SIGNATURES_FIELD}\`, in
 * struct order (enums as uint8), exactly what the contract's CLAIM_CHECK_TYPEHASH names.
 */
export const claimCheckTypes = ${render({ ClaimCheck: fields })} as const;

/** IFuulManager.ClaimCheck, one argument of \`claim\`, as viem encodes it (enums as their uint8). */
export interface ClaimCheck {
${structType}
}
`;
}

if (require.main === module) {
  renderContractModule()
    .then((source) => {
      writeFileSync(CONTRACT_MODULE_FILE, source);
      console.log(`wrote ${path.relative(process.cwd(), CONTRACT_MODULE_FILE)}`);
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
