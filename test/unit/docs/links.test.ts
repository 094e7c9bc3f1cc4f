import { readFileSync } from 'node:fs';
import path from 'node:path';
import { codeSpans, documentationFiles, headingAnchors, isRepositoryPath, problemsIn, RepositoryTree, ROOT } from './doc-links';

/**
 * The documentation points only at what the repository holds: every relative link (and its
 * heading anchor) and every backticked repository path of README.md, CONTRIBUTING.md,
 * bench/README.md and docs/**\/*.md exists. test/unit/docs/doc-links.ts says how a path is told from
 * other backticked text. A pure file-system test: no database, no stack.
 */
const tree = new RepositoryTree();
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('the documentation', () => {
  const files = documentationFiles(tree);

  it('is README.md, CONTRIBUTING.md, bench/README.md and the pages of docs/', () => {
    expect(files.slice(0, 3)).toEqual(['README.md', 'CONTRIBUTING.md', 'bench/README.md']);
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(0);
    expect(files.filter((file) => !tree.exists(file))).toEqual([]);
  });

  it.each(documentationFiles(tree))('%s links and names only what exists', (file) => {
    const problems = problemsIn(file, read(file), tree).map(({ line, what }) => `${file}:${line}: ${what}`);
    expect(problems).toEqual([]);
  });

  it('names repository paths in the README that the check reads (it is not vacuous)', () => {
    const spans = codeSpans(read('README.md')).map((span) => span.text);
    expect(spans.filter((span) => isRepositoryPath(span, tree)).length).toBeGreaterThan(20);
  });
});

describe('the check', () => {
  const check = (markdown: string, file = 'docs/example.md') => problemsIn(file, markdown, tree).map(({ line, what }) => `${line}: ${what}`);

  it('finds a backticked path, a bare file name, a link and an anchor that do not exist', () => {
    const markdown = [
      '# Example',
      'The job is `services/claim/jobs/pay-conversions.job.ts`, not `services/claim/jobs/pay-conversion.job.ts`.',
      'Routes live in `gateway/routes/`, not in `gateway/route/`; see `manifest.ts`, not `manifests-of-all.ts`.',
      'Read [the architecture](architecture.md) and [nothing](no-such-page.md), [a heading](../README.md#quick-start)',
      'and [no heading](../README.md#no-such-heading), [here](#example) and [not here](#elsewhere).',
      '![a screenshot](screenshots/portal-04-stats.png) ![none](screenshots/none.png)',
      'Run `node -r ./scripts/register-ts.js` (not `./test/helpers/register-ts.js`); CI is `.ci/run`, not `.ci/runs`.',
      'A code span may run across lines, `GET',
      '/api/v1/claim-checks`, and the next one is still read: `services/no-such-file.ts`; so may [a',
      'link](no-such-either.md).',
    ].join('\n');
    expect(check(markdown)).toEqual([
      '2: `services/claim/jobs/pay-conversion.job.ts`: no such path in the repository',
      '3: `gateway/route/`: no such path in the repository',
      '3: `manifests-of-all.ts`: no such file in the repository',
      '4: link to no-such-page.md: docs/no-such-page.md does not exist',
      '5: link to ../README.md#no-such-heading: no heading #no-such-heading in README.md',
      '5: link to #elsewhere: no such heading in docs/example.md',
      '6: link to screenshots/none.png: docs/screenshots/none.png does not exist',
      '7: `test/helpers/register-ts.js`: no such path in the repository',
      '7: `.ci/runs`: no such path in the repository',
      '9: link to no-such-either.md: docs/no-such-either.md does not exist',
      '9: `services/no-such-file.ts`: no such path in the repository',
    ]);
  });

  it('fails on the real README once a path in it is broken', () => {
    const readme = read('README.md');
    expect(check(readme, 'README.md')).toEqual([]);
    const broken = `${readme}\nThe relay is \`services/platform/outbox/relays.ts\`.\n`;
    expect(check(broken, 'README.md')).toEqual([
      `${broken.split('\n').length - 1}: \`services/platform/outbox/relays.ts\`: no such path in the repository`,
    ]);
  });

  it('reads patterns: <name> is one segment, * part of one, ** any folders, {a,b} each of several', () => {
    expect(
      check(
        [
          '`services/<service>/manifest.ts` `gateway/routes/<area>/*.routes.ts` `services/**/pay-conversions.job.ts`',
          '`gateway/{auth,access,http,openapi}/` `test/medium/<service>/`',
        ].join('\n'),
      ),
    ).toEqual([]);
    expect(check('`services/<service>/manifests.ts` `gateway/{auth,nothing}/` `services/**/no-such.job.ts`')).toEqual([
      '1: `services/<service>/manifests.ts`: no such path in the repository',
      '1: `gateway/{auth,nothing}/`: no such path in the repository',
      '1: `services/**/no-such.job.ts`: no such path in the repository',
    ]);
  });

  it('leaves alone what is no repository path: HTTP paths, URLs, identifiers, commands, code blocks, built output', () => {
    const markdown = [
      '`/api/v1/claim-checks` `…/agencies` `https://example.com/x.md` `application/json` `tax_status` `npm test`',
      '`referral.audience.v1` `0x…` `dist/cli/` `web/generated/` `test-artifacts/` `gen/referral/`',
      '[the site](https://www.standardwebhooks.com)',
      '```sh',
      'node dist/bench/profile-summary.js services/no/such/file.ts',
      '```',
    ].join('\n');
    expect(check(markdown)).toEqual([]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect([...headingAnchors('# What `npm start` runs\n## Events between services\n## Events between services\n```\n# not a heading\n```')]).toEqual(
      ['what-npm-start-runs', 'events-between-services', 'events-between-services-1'],
    );
  });
});
