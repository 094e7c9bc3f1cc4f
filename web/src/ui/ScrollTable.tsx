import type { ReactNode } from 'react';

/** A column heading: its text, or a heading with a key of its own (a checkbox, a hidden label); numeric ones align right. */
export type TableColumn = string | { key: string; label: ReactNode; numeric?: boolean };

/** A right-aligned column heading (figures, counts, amounts). */
export const numeric = (label: string): TableColumn => ({ key: label, label, numeric: true });

/**
 * A data table the same way on every screen: a focusable region that scrolls sideways on a narrow
 * screen (named by `label`, or by the heading `labelledBy` names), a caption for screen readers,
 * the column headings, and the rows the caller gives.
 */
export function ScrollTable({
  label,
  labelledBy,
  caption,
  columns,
  children,
}: {
  label?: string;
  labelledBy?: string;
  caption: ReactNode;
  columns: readonly TableColumn[];
  children: ReactNode;
}) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label} aria-labelledby={labelledBy}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th scope="col" key={column}>
                  {column}
                </th>
              ) : (
                <th scope="col" key={column.key} className={column.numeric ? 'number' : undefined}>
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
