/**
 * A statement's parameters as its text is written, numbered by the builder, never by hand: `add`
 * takes a value and answers its placeholder (`$2`, `$3`, … in the order of the calls), so a piece of
 * SQL written in any order and joined to any other keeps each placeholder with its value. The
 * project comes first: every statement of the list is of one project (`project`, always `$1`).
 */
export class Parameters {
  readonly values: unknown[] = [];
  /** The project's placeholder. */
  readonly project: string;

  constructor(projectId: string) {
    this.project = this.add(projectId);
  }

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
