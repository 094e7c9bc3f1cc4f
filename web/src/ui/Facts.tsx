import type { ReactNode } from 'react';

/** A term and its value (words, or a link to what it names), as a detail screen lists them. */
export type Fact = [term: string, value: ReactNode];

/** Terms and their values (`dl.facts`), for screens that build the list from the record (terms are unique). */
export function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
