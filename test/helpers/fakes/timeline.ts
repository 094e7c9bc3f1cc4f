/**
 * A value that changes at moments: what it was at any moment is the last change at or before it.
 * The fakes of other services keep their state so, to answer "as things stood at" questions.
 */
export class Timeline<T> {
  private readonly changes: Array<{ from: number; value: T }> = [];

  constructor(private readonly initial: T) {}

  /** From `from` on (changes come in time order, as a test clock moves forward). */
  set(from: Date, value: T): void {
    this.changes.push({ from: from.getTime(), value });
  }

  at(moment: Date): T {
    let value = this.initial;
    for (const change of this.changes) if (change.from <= moment.getTime()) value = change.value;
    return value;
  }
}

/** One key per user, as the services store identifiers (lowercase where case carries no meaning: the tests' EVM addresses). */
export function userKey(projectId: string, user: { identifier: string; identifierType: string }): string {
  return `${projectId}|${user.identifierType}|${user.identifier.toLowerCase()}`;
}
