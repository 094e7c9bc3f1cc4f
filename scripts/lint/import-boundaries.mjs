/**
 * The ESLint rule behind `boundaries/layers` (eslint.config.mjs holds the policy, this file the mechanics).
 *
 * Each import is resolved to a path relative to the repository root before it is matched, so the
 * policy is about what is imported, not how the relative path happens to be spelled
 * (`../../tax/x` and `../../../services/tax/x` are the same import). Our imports are relative or
 * bare package names (no path aliases), so resolving needs no resolver plugin.
 *
 * A layer is `{ name, files, except?, mayImport?, mayNotImport?, packagesNot?, why }`:
 * - `files` / `except`: globs of the files the layer governs (`**` any depth, `*` one name,
 *   `{service}` one name captured for use in the layer's other globs);
 * - `mayImport`: the only repository paths those files may import (packages stay free);
 * - `mayNotImport`: repository paths refused even where `mayImport` allows them;
 * - `packagesNot`: npm packages refused (a subpath such as `express/lib/x` counts as `express`).
 * A file governed by several layers must satisfy each of them; an import is reported once, for the
 * first layer it breaks.
 */
import path from 'node:path';

/**
 * Glob to anchored regex: `dir/**` is anything inside dir (not dir itself), a leading `**` and
 * slash any leading folders, `*` part of one name, `{name}` one whole name, captured.
 */
function globToRegex(glob, captures = {}) {
  let source = '';
  for (let i = 0; i < glob.length;) {
    if (glob.startsWith('/**', i)) {
      source += '/.+';
      i += 3;
    } else if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 3;
    } else if (glob[i] === '*') {
      source += '[^/]*';
      i += 1;
    } else if (glob[i] === '{') {
      const end = glob.indexOf('}', i);
      const name = glob.slice(i + 1, end);
      source += name in captures ? escape(captures[name]) : `(?<${name}>[^/]+)`;
      i = end + 1;
    } else {
      source += escape(glob[i]);
      i += 1;
    }
  }
  return new RegExp(`^${source}$`);
}

function escape(text) {
  return text.replace(/[.+?^$()|[\]\\]/g, '\\$&');
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`; `node:fs` stays. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Repository-relative path of a relative import, without a .ts/.js extension. */
function resolveLocal(root, filename, specifier) {
  const absolute = path.resolve(path.dirname(filename), specifier);
  return path
    .relative(root, absolute)
    .split(path.sep)
    .join('/')
    .replace(/\.(ts|js|mjs|cjs)$/, '');
}

/** The import specifiers a node carries: import/export ... from, import(), require(), import = require(), typeof import(). */
function specifierOf(node) {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
    case 'ImportExpression':
      return literal(node.source);
    case 'CallExpression':
      return node.callee.type === 'Identifier' && node.callee.name === 'require' ? literal(node.arguments[0]) : undefined;
    case 'TSExternalModuleReference':
      return literal(node.expression);
    case 'TSImportType':
      return literal(node.source ?? node.argument?.literal ?? node.argument);
    default:
      return undefined;
  }
}

function literal(node) {
  return node && node.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
}

/** The layers that govern `file`, each with the names its `files` glob captured. */
function layersFor(layers, file) {
  const governing = [];
  for (const layer of layers) {
    const match = globToRegex(layer.files).exec(file);
    if (!match) continue;
    if ((layer.except ?? []).some((glob) => globToRegex(glob).test(file))) continue;
    governing.push({ layer, captures: match.groups ?? {} });
  }
  return governing;
}

/** Why `target` (a package or a repository path) breaks `layer`, or undefined when it does not. */
function violation({ layer, captures }, target) {
  if (target.kind === 'package') {
    return (layer.packagesNot ?? []).includes(target.name) ? `the package ${target.name}` : undefined;
  }
  const matches = (glob) => globToRegex(glob, captures).test(target.path);
  if (layer.mayImport && !layer.mayImport.some(matches)) return target.path;
  if ((layer.mayNotImport ?? []).some(matches)) return target.path;
  return undefined;
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforces which parts of the repository each layer may import (see eslint.config.mjs).' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          layers: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                files: { type: 'string' },
                except: { type: 'array', items: { type: 'string' } },
                mayImport: { type: 'array', items: { type: 'string' } },
                mayNotImport: { type: 'array', items: { type: 'string' } },
                packagesNot: { type: 'array', items: { type: 'string' } },
                why: { type: 'string' },
              },
              required: ['name', 'files', 'why'],
              additionalProperties: false,
            },
          },
        },
        required: ['root', 'layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      forbidden: '{{layer}} may not import {{target}}: {{why}}',
    },
  },
  create(context) {
    const { root, layers } = context.options[0];
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const governing = layersFor(layers, file);
    if (governing.length === 0) return {};

    const check = (node) => {
      const specifier = specifierOf(node);
      if (specifier === undefined) return;
      const target = specifier.startsWith('.')
        ? { kind: 'path', path: resolveLocal(root, context.filename, specifier) }
        : { kind: 'package', name: packageName(specifier) };
      // One report per import: the first layer (in the policy's order) that it breaks.
      for (const rule of governing) {
        const refused = violation(rule, target);
        if (refused) {
          context.report({ node, messageId: 'forbidden', data: { layer: rule.layer.name, target: refused, why: rule.layer.why } });
          return;
        }
      }
    };
    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
      CallExpression: check,
      TSExternalModuleReference: check,
      TSImportType: check,
    };
  },
};

export const importBoundaries = {
  meta: { name: 'import-boundaries' },
  rules: { layers: layersRule },
};
