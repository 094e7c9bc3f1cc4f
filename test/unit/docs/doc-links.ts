import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * What the repository's Markdown points at, checked against the files it holds: relative links
 * (`[text](docs/x.md#section)`, images included) and backticked repository paths
 * (`services/claim/jobs/pay-conversions.job.ts`, `gateway/routes/`). Fenced code blocks are
 * examples (shell commands, JSON, trees) and are not read.
 *
 * Which backticked text is a path:
 * - one word (no whitespace), not an URL, not starting with `/` (an HTTP path), `..` or `-` (a
 *   leading `./` is read as the repository's root: `./scripts/register-ts.js`), and
 * - it contains a `/` and its first segment is a top-level entry of the repository (`services/…`,
 *   `docs/…`, `.ci/run`), or it has no `/` and ends in a source or documentation extension
 *   (`manifest.ts`, `durations.json`, `CONTRIBUTING.md`): a bare file name must then be the name of
 *   some file of the repository, in any folder.
 * What `.gitignore` ignores (`dist/`, `gen/`, `web/generated/`, `test-artifacts/`…) is built or
 * written by a run, not held by the repository: such paths are not checked, and a bare name is not
 * found in them.
 * A path may be a pattern: `<name>` stands for one segment, `*` for part of one, `**` for any
 * folders, and the pattern must match at least one entry; `{a,b}` lists several, each of which must.
 */
export const ROOT = path.resolve(__dirname, '../../..');

/** Bare names with one of these extensions are file names. */
const FILE_EXTENSIONS = /\.(?:ts|tsx|js|mjs|cjs|json|md|ya?ml|sol|proto|sh|sql)$/;

export interface Problem {
  file: string;
  line: number;
  what: string;
}

/** The repository as the checks see it: its files and folders, without what .gitignore ignores. */
export class RepositoryTree {
  private readonly ignored: Array<(relative: string, isDir: boolean) => boolean>;
  private readonly basenames = new Set<string>();
  private readonly topLevel = new Set<string>();
  private readonly headingCache = new Map<string, Set<string>>();

  constructor(readonly root: string = ROOT) {
    this.ignored = readIgnorePatterns(root);
    this.walk('');
  }

  /** Whether `relative` (slash-separated, no trailing slash) is ignored, itself or through a parent. */
  isIgnored(relative: string): boolean {
    const parts = relative.split('/');
    return parts.some((_, index) => {
      const prefix = parts.slice(0, index + 1).join('/');
      // A path that does not exist may be a folder: `web/dist` is ignored as `web/dist/` is.
      const isDir = index < parts.length - 1 || this.isDirectory(prefix) || !existsSync(path.join(this.root, prefix));
      return this.ignored.some((matches) => matches(prefix, isDir));
    });
  }

  isTopLevel(name: string): boolean {
    return this.topLevel.has(name);
  }

  hasFileNamed(name: string): boolean {
    return this.basenames.has(name);
  }

  /** Entries of a folder (relative to the root), without ignored ones. */
  entries(relativeDir: string): string[] {
    const absolute = path.join(this.root, relativeDir);
    if (!this.isDirectory(relativeDir)) return [];
    return readdirSync(absolute).filter((name) => !this.isIgnored(join(relativeDir, name)));
  }

  exists(relative: string): boolean {
    return relative === '' || (existsSync(path.join(this.root, relative)) && !this.isIgnored(relative));
  }

  isDirectory(relative: string): boolean {
    const absolute = path.join(this.root, relative);
    return existsSync(absolute) && statSync(absolute).isDirectory();
  }

  /** The anchors GitHub gives the headings of a Markdown file of the repository. */
  anchorsOf(relative: string): Set<string> {
    let anchors = this.headingCache.get(relative);
    if (!anchors) {
      anchors = headingAnchors(readFileSync(path.join(this.root, relative), 'utf8'));
      this.headingCache.set(relative, anchors);
    }
    return anchors;
  }

  private walk(relativeDir: string): void {
    for (const name of this.entries(relativeDir)) {
      if (name === '.git') continue;
      const relative = join(relativeDir, name);
      if (relativeDir === '') this.topLevel.add(name);
      if (this.isDirectory(relative)) this.walk(relative);
      else this.basenames.add(name);
    }
  }
}

function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** The patterns of the root .gitignore, as predicates (the forms it uses: names, globs, anchored folders). */
function readIgnorePatterns(root: string): Array<(relative: string, isDir: boolean) => boolean> {
  const file = path.join(root, '.gitignore');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const patterns = lines.map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  return [
    (relative) => relative === 'node_modules' || relative.endsWith('/node_modules'),
    ...patterns.map((pattern) => {
      const dirOnly = pattern.endsWith('/');
      const body = pattern.replace(/^\//, '').replace(/\/$/, '');
      const anchored = body.includes('/');
      const regex = new RegExp(`^${body.split('*').map(escapeRegex).join('[^/]*')}$`);
      return (relative: string, isDir: boolean) => {
        if (dirOnly && !isDir) return false;
        return anchored ? regex.test(relative) : regex.test(relative.split('/').pop()!);
      };
    }),
  ];
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^$()|[\]\\{}]/g, '\\$&');
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped, each space a hyphen; repeats get -1, -2… */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The lines outside fenced code blocks, with their numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence !== undefined) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1]!;
      return;
    }
    lines.push({ line: index + 1, text });
  });
  return lines;
}

/**
 * The blocks of prose a code span or a link may run across: the lines of a paragraph, up to a blank
 * line; a heading and each table row are blocks of their own.
 */
function proseBlocks(markdown: string): Array<{ line: number; text: string }> {
  const blocks: Array<{ line: number; text: string }> = [];
  let current: { line: number; lines: string[] } | undefined;
  const close = () => {
    if (current) blocks.push({ line: current.line, text: current.lines.join('\n') });
    current = undefined;
  };
  let previous = -1;
  for (const { line, text } of proseLines(markdown)) {
    const alone = /^\s*(?:\||#{1,6}\s)/.test(text);
    if (text.trim() === '' || alone || line !== previous + 1) close();
    previous = line;
    if (text.trim() === '') continue;
    if (alone) {
      blocks.push({ line, text });
      continue;
    }
    current ??= { line, lines: [] };
    current.lines.push(text);
  }
  close();
  return blocks;
}

/** Where the code spans of a block of prose are: a run of backticks closed by a run of the same length. */
function codeSpanRanges(text: string): Array<{ start: number; end: number; ticks: number }> {
  const ranges: Array<{ start: number; end: number; ticks: number }> = [];
  let index = 0;
  while (index < text.length) {
    const open = text.indexOf('`', index);
    if (open < 0) break;
    let run = open;
    while (text[run] === '`') run += 1;
    const ticks = run - open;
    let close = text.indexOf('`', run);
    let found = false;
    while (close >= 0) {
      let after = close;
      while (text[after] === '`') after += 1;
      if (after - close === ticks) {
        ranges.push({ start: open, end: after, ticks });
        index = after;
        found = true;
        break;
      }
      close = text.indexOf('`', after);
    }
    if (!found) index = run;
  }
  return ranges;
}

/** The inline code spans of a block of prose (line ends inside read as spaces), with where each begins. */
export function codeSpans(text: string): Array<{ text: string; offset: number }> {
  return codeSpanRanges(text).map(({ start, end, ticks }) => ({
    text: text
      .slice(start + ticks, end - ticks)
      .replace(/\n/g, ' ')
      .trim(),
    offset: start,
  }));
}

/** The targets of the inline links, images and link definitions of a block of prose, code spans left out. */
export function linkTargets(text: string): Array<{ target: string; offset: number }> {
  // Code spans blanked out in place, so that offsets stay true.
  let prose = text;
  for (const { start, end } of codeSpanRanges(text))
    prose = prose.slice(0, start) + prose.slice(start, end).replace(/[^\n]/g, ' ') + prose.slice(end);
  const inline = [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const definitions = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)];
  return [...inline, ...definitions].map((match) => ({ target: match[1]!, offset: match.index })).sort((a, b) => a.offset - b.offset);
}

/** Whether a code span's text is a repository path by the rule above (patterns included). */
export function isRepositoryPath(span: string, tree: RepositoryTree): boolean {
  if (span === '' || /\s/.test(span) || span.includes('://') || /^(?:[/\-~…]|\.\.)/.test(span)) return false;
  const slash = span.indexOf('/');
  if (slash < 0) return /^[A-Za-z0-9_]/.test(span) && FILE_EXTENSIONS.test(span) && !/[<>*{}]/.test(span);
  const first = span.slice(0, slash);
  return tree.isTopLevel(first) || expandBraces(first).some((name) => tree.isTopLevel(name));
}

/** `{a,b}` alternatives, expanded (one level of braces per group, as the documents use them). */
function expandBraces(pattern: string): string[] {
  const group = /\{([^{}]*)\}/.exec(pattern);
  if (!group) return [pattern];
  return group[1]!
    .split(',')
    .flatMap((choice) => expandBraces(pattern.slice(0, group.index) + choice + pattern.slice(group.index + group[0].length)));
}

/** Whether a path (or a pattern of paths) names at least one entry of the repository; `{a,b}` needs each. */
export function pathExists(pattern: string, tree: RepositoryTree): boolean {
  return expandBraces(pattern).every((expanded) => {
    const segments = expanded.replace(/\/+$/, '').split('/');
    return matchFrom('', segments, tree);
  });
}

function matchFrom(dir: string, segments: string[], tree: RepositoryTree): boolean {
  if (segments.length === 0) return tree.exists(dir);
  const [segment, ...rest] = segments as [string, ...string[]];
  if (segment === '**') {
    if (matchFrom(dir, rest, tree)) return true;
    return tree.entries(dir).some((name) => tree.isDirectory(join(dir, name)) && matchFrom(join(dir, name), segments, tree));
  }
  if (!/[<>*]/.test(segment)) return tree.exists(join(dir, segment)) && matchFrom(join(dir, segment), rest, tree);
  const regex = new RegExp(
    `^${segment
      .split(/(<[^>]+>|\*)/)
      .map((part) => (part === '*' ? '[^/]*' : part.startsWith('<') ? '[^/]+' : escapeRegex(part)))
      .join('')}$`,
  );
  return tree.entries(dir).some((name) => regex.test(name) && matchFrom(join(dir, name), rest, tree));
}

/**
 * Every broken link, anchor and backticked path of one Markdown file (`file` relative to the
 * root; its relative links are resolved from its folder).
 */
export function problemsIn(file: string, markdown: string, tree: RepositoryTree): Problem[] {
  const problems: Problem[] = [];
  const ownAnchors = headingAnchors(markdown);
  for (const block of proseBlocks(markdown)) {
    const lineAt = (offset: number) => block.line + (block.text.slice(0, offset).match(/\n/g)?.length ?? 0);
    for (const { target, offset } of linkTargets(block.text)) {
      const line = lineAt(offset);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:…
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const linkPath = decodeURIComponent(rawPath);
      if (linkPath === '') {
        if (anchor !== undefined && !ownAnchors.has(anchor)) problems.push({ file, line, what: `link to #${anchor}: no such heading in ${file}` });
        continue;
      }
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), linkPath)).replace(/\/$/, '');
      if (resolved.startsWith('..') || !tree.exists(resolved)) {
        problems.push({ file, line, what: `link to ${target}: ${resolved} does not exist` });
      } else if (anchor !== undefined && resolved.endsWith('.md') && !tree.anchorsOf(resolved).has(anchor)) {
        problems.push({ file, line, what: `link to ${target}: no heading #${anchor} in ${resolved}` });
      }
    }
    for (const { text: written, offset } of codeSpans(block.text)) {
      const span = written.replace(/^\.\/(?=.)/, '');
      if (!isRepositoryPath(span, tree) || tree.isIgnored(span.replace(/\/+$/, ''))) continue;
      const found = span.includes('/') ? pathExists(span, tree) : tree.hasFileNamed(span);
      if (!found)
        problems.push({ file, line: lineAt(offset), what: `\`${span}\`: no such ${span.includes('/') ? 'path' : 'file'} in the repository` });
    }
  }
  return problems.sort((a, b) => a.line - b.line);
}

/** The documentation the checks cover: README.md, CONTRIBUTING.md, bench/README.md and docs/**\/*.md. */
export function documentationFiles(tree: RepositoryTree): string[] {
  const docs: string[] = [];
  const collect = (dir: string) => {
    for (const name of tree.entries(dir)) {
      const relative = join(dir, name);
      if (tree.isDirectory(relative)) collect(relative);
      else if (name.endsWith('.md')) docs.push(relative);
    }
  };
  collect('docs');
  return ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...docs.sort()];
}
