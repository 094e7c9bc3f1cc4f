import { Link, useSearchParams } from 'react-router-dom';
import { pageFromUrl } from '../../../ui/Pager';
import { Empty, ErrorMessage, Loading } from '../../../ui/states';
import { currencyLabel, useCurrencyChoices } from '../currencies';
import { BOARDS, boardChoice, type BoardKind, typedUsers, userTypeOf, utcDay, type UserType } from './boards';
import { DayRangeForm } from './DayRangeForm';
import { PayoutsBoard } from './PayoutsBoard';
import { PointBalances } from '../PointBalances';
import { ReferredVolumeLookup } from './ReferredVolumeLookup';
import { ReferredUsersBoard, RevenueBoard, VolumeBoard } from './UsdBoards';

/** What the page shows, all of it in the URL (a reload or a shared link shows the same board). */
interface View {
  board: BoardKind;
  currency: string;
  user_type: UserType;
  from: string;
  to: string;
  page: number;
  users: string;
  identifier_type: string;
}

/**
 * Every leaderboard the API has, one at a time through the board picker: payouts (per currency,
 * over a range of UTC days), volume, revenue, referred users, and the referred volume of named users.
 */
export function LeaderboardPage() {
  const [params, setParams] = useSearchParams();
  const chosen = boardChoice(params.get('board'));
  const view: View = {
    board: chosen.kind,
    currency: params.get('currency') ?? '',
    user_type: userTypeOf(params.get('user_type')),
    from: utcDay(params.get('from')) ?? '',
    to: utcDay(params.get('to')) ?? '',
    page: pageFromUrl(params),
    users: params.get('users') ?? '',
    identifier_type: params.get('identifier_type') ?? 'evm_address',
  };
  // Any change but a page turn starts at page 1; empty values stay out of the URL.
  const choose = (next: Partial<View>) => {
    const merged: View = { ...view, page: 1, ...next };
    setParams(
      Object.entries(merged)
        .filter(([, value]) => value !== '' && !(typeof value === 'number' && value === 1))
        .map(([key, value]): [string, string] => [key, String(value)]),
    );
  };
  const onPage = (page: number) => choose({ page });

  return (
    <>
      <h2 id="leaderboard-title">Leaderboards</h2>
      <div className="inline-fields">
        <div>
          <label htmlFor="board-kind">Board</label>
          <select id="board-kind" value={chosen.kind} onChange={(event) => choose({ board: event.target.value as BoardKind })}>
            {BOARDS.map((board) => (
              <option key={board.kind} value={board.kind}>
                {board.label}
              </option>
            ))}
          </select>
        </div>
        {chosen.userTypes ? (
          <div>
            <label htmlFor="board-user-type">Ranked</label>
            <select id="board-user-type" value={view.user_type} onChange={(event) => choose({ user_type: userTypeOf(event.target.value) })}>
              <option value="affiliate">Affiliates</option>
              <option value="end_user">End users</option>
            </select>
          </div>
        ) : null}
      </div>
      <p className="help">{chosen.help}</p>
      {chosen.kind === 'payouts' ? <PayoutsView view={view} choose={choose} onPage={onPage} /> : null}
      {chosen.kind === 'volume' ? <VolumeBoard userType={view.user_type} page={view.page} onPage={onPage} /> : null}
      {chosen.kind === 'revenue' ? <RevenueBoard userType={view.user_type} page={view.page} onPage={onPage} /> : null}
      {chosen.kind === 'referred-users' ? <ReferredUsersBoard page={view.page} onPage={onPage} /> : null}
      {chosen.kind === 'referred-volume' ? (
        <ReferredVolumeLookup
          users={typedUsers(view.users)}
          identifierType={view.identifier_type}
          onLookUp={(users, identifierType) => choose({ users: users.join(','), identifier_type: identifierType })}
        />
      ) : null}
    </>
  );
}

/** The payouts board: its currency (the project's, picked), the days counted, then the board. */
function PayoutsView({ view, choose, onPage }: { view: View; choose(next: Partial<View>): void; onPage(page: number): void }) {
  const currencies = useCurrencyChoices();
  const currency = currencies.data?.find((choice) => choice.id === view.currency) ?? currencies.data?.[0];
  if (currencies.isPending) return <Loading label="Loading currencies…" />;
  if (currencies.isError)
    return <ErrorMessage error={currencies.error} title="The currencies did not load" onRetry={() => void currencies.refetch()} />;
  if (!currency)
    return (
      <Empty>
        No currencies yet, so nothing was paid. <Link to="/admin/payouts/currencies">Add a currency</Link>.
      </Empty>
    );
  return (
    <>
      <div className="inline-fields">
        <div>
          <label htmlFor="board-currency">Currency</label>
          <select id="board-currency" value={currency.id} onChange={(event) => choose({ currency: event.target.value })}>
            {currencies.data.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {currencyLabel(choice)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {/* Keyed by the URL's range: going back or choosing "All time" shows what is counted. */}
      <DayRangeForm key={`${view.from}|${view.to}`} from={view.from} to={view.to} onApply={(from, to) => choose({ from, to })} />
      <PayoutsBoard
        currency={currency}
        userType={view.user_type}
        from={view.from || undefined}
        to={view.to || undefined}
        page={view.page}
        onPage={onPage}
      />
      {currency.type === 'point' ? <PointBalances /> : null}
    </>
  );
}
