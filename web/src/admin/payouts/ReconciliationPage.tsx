import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { formatTokenAmount } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { currencyLabel, useCurrencyChoices } from './currencies';
import { KIND_LABELS } from './movement-kinds';
import { BOOK_ROWS, byCurrency, type ReconciliationLine, rowValue } from './reconciliation';

/**
 * The books of the project (GET .../ledger/reconciliation, read in one snapshot): per currency and
 * kind of payout where every amount earned ended up, the two identities that must hold, and whether
 * they do. Read again on each visit and on "Read again": money moves all the time.
 */
export function ReconciliationPage() {
  const { projectId, api } = useProject();
  const currencies = useCurrencyChoices();
  const [params, setParams] = useSearchParams();
  const currencyId = params.get('currency') ?? '';
  const books = useQuery({
    queryKey: ['reconciliation', projectId, currencyId],
    staleTime: 0,
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/ledger/reconciliation', {
        path: { projectId },
        query: currencyId ? { currency_id: currencyId } : {},
        signal,
      }),
  });
  const broken = books.data?.results.filter((line) => !line.balanced).length ?? 0;

  return (
    <>
      <h2 id="reconciliation-title">Reconciliation</h2>
      <p className="help">
        Every amount earned ends one way, and the claim checks hold exactly what is owed to users. Two identities, per currency and kind of payout,
        exact in base units:
      </p>
      <ol className="help" data-testid="identities">
        <li>earned = capped + reversed + declined + pending + available;</li>
        <li>available + credited back (expired vouchers returned to open checks) + debt = in open checks + in closed checks + claimed + expired.</li>
      </ol>
      <div className="inline-fields">
        <div>
          <label htmlFor="books-currency">Currency</label>
          <select id="books-currency" value={currencyId} onChange={(event) => setParams(event.target.value ? { currency: event.target.value } : {})}>
            <option value="">Every currency</option>
            {currencies.data?.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {currencyLabel(choice)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="button" onClick={() => void books.refetch()} disabled={books.isFetching}>
            {books.isFetching ? 'Reading…' : 'Read again'}
          </button>
        </div>
      </div>
      {books.isPending ? <Loading label="Reading the books…" /> : null}
      {books.isError ? <LoadError query={books} /> : null}
      {books.data && books.data.results.length === 0 ? <Empty>No currencies yet: nothing was earned, nothing to reconcile.</Empty> : null}
      {books.data && books.data.results.length > 0 ? (
        books.data.balanced ? (
          <p className="state balanced" role="status" data-testid="books-state">
            Balanced: both identities hold on every line.
          </p>
        ) : (
          <p className="state state-error" role="alert" data-testid="books-state">
            NOT balanced: {broken} of {books.data.results.length} lines break an identity. Money was lost or counted twice; the lines marked NOT
            balanced below show where.
          </p>
        )
      ) : null}
      {books.data ? byCurrency(books.data.results).map((group) => <CurrencyBooks key={group.currency.id} {...group} />) : null}
    </>
  );
}

function CurrencyBooks({ currency, lines }: { currency: ReconciliationLine['currency']; lines: ReconciliationLine[] }) {
  const titleId = `books-${currency.id}`;
  return (
    <>
      <h3 id={titleId}>{currencyLabel(currency)}</h3>
      <ScrollTable
        labelledBy={titleId}
        caption={`The books of ${currency.name}, per kind of payout`}
        columns={['Figure', ...lines.map((line) => numeric(KIND_LABELS[line.kind]))]}
      >
        {BOOK_ROWS.map((row) => (
          <tr key={row.label} className={row.total ? 'book-total' : undefined}>
            <th scope="row">{row.label}</th>
            {lines.map((line) => (
              <td key={line.kind} className="number">
                {formatTokenAmount(rowValue(row, line), currency)}
              </td>
            ))}
          </tr>
        ))}
        <tr>
          <th scope="row">Both identities</th>
          {lines.map((line) => (
            <td key={line.kind} className={line.balanced ? 'number' : 'number refused'} data-testid="line-state">
              {line.balanced ? 'Balanced' : 'NOT balanced'}
            </td>
          ))}
        </tr>
      </ScrollTable>
    </>
  );
}
