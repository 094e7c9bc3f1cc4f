import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { ApiError, type ApiBody, type ApiResult } from '../../api/client';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { Empty, ErrorMessage, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { type Currency, currencyLabel, useCurrencyChoices } from './currencies';
import { type CapsDraft, capsDraftOf, capsOf } from './caps';
import {
  draftOf,
  type LevelDrafts,
  levelDraftsOf,
  levelField,
  NO_REWARD,
  type PayoutTerms,
  type Reward,
  type RewardDraft,
  rewardOf,
  UPPER_LEVELS,
} from './reward';
import { RewardField } from './RewardField';

type TermsBody = ApiBody<'/api/v1/projects/{projectId}/payout-terms/{conversionName}', 'put'>;
type Audience = ApiResult<'/api/v1/projects/{projectId}/audiences', 'get'>['results'][number];

interface TierDraft {
  /** Keeps each row's inputs when a row above is removed. */
  key: number;
  audienceId: string;
  reward: RewardDraft;
  /** Levels 2..4 while this tier is the referring affiliate's: they replace the terms' levels. */
  levels: LevelDrafts;
}

export const termsKey = (projectId: string) => ['payout-terms', projectId] as const;

/** The first violation at `field` or inside it (`end_user.fixed` is the end-user reward's). */
function errorAt(errors: Record<string, string>, field: string): string | undefined {
  const match = Object.keys(errors).find((key) => key === field || key.startsWith(`${field}.`));
  return match === undefined ? undefined : errors[match];
}

/** The API's fields an input of this form shows (with errorAt): a refusal's banner lists only the others. */
const SHOWN_AT_INPUT =
  /^(conversion_name|currency_id|hold_days|end_user|affiliate[234]?|(end_user|affiliate)_allowlist_audience_id|caps\.per_conversion|caps\.per_end_user|caps\.per_affiliate_window\.(amount|days)|tiers\[\d+\]\.(audience_id|affiliate[234]?))(\.|\[|$)/;
const shownAtInput = (field: string) => SHOWN_AT_INPUT.test(field);

/** Creates (terms/new) or edits (terms/edit/:conversionName) what a conversion name pays; deletes with a confirmation. */
export function PayoutTermsEditor() {
  const { conversionName } = useParams();
  const { projectId, api } = useProject();
  const currencies = useCurrencyChoices();
  const terms = useQuery({
    queryKey: [...termsKey(projectId), 'one', conversionName],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/payout-terms/{conversionName}', { path: { projectId, conversionName: conversionName! }, signal }),
    enabled: conversionName !== undefined,
    retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 2,
  });
  const title = conversionName === undefined ? 'New payout terms' : `Payout terms: ${conversionName}`;
  let body;
  if (currencies.isPending || (conversionName !== undefined && terms.isPending)) body = <Loading label="Loading the terms…" />;
  else if (currencies.isError) body = <LoadError query={currencies} />;
  else if (terms.isError) body = <LoadError query={terms} />;
  else if (currencies.data.length === 0) {
    body = (
      <Empty>
        Terms pay in a currency of the project, and it has none yet. <Link to="/admin/payouts/currencies">Add a currency</Link> first.
      </Empty>
    );
  } else body = <TermsForm key={conversionName ?? 'new'} existing={terms.data} currencies={currencies.data} />;
  return (
    <>
      <p className="breadcrumb">
        <Link to={conversionName === undefined ? '..' : '../..'} relative="path">
          Payout terms
        </Link>{' '}
        /
      </p>
      <h2>{title}</h2>
      {body}
    </>
  );
}

function TermsForm({ existing, currencies }: { existing: PayoutTerms | undefined; currencies: Currency[] }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const audiences = useQuery({
    queryKey: ['audiences', projectId, 'choices'],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, query: { page: 1, page_size: 100 }, signal }),
    // Tier audiences first, by rank.
    select: (page) => [...page.results].sort((a, b) => (a.tier_rank ?? Infinity) - (b.tier_rank ?? Infinity)),
  });
  const startCurrency = currencies.find((currency) => currency.id === existing?.currency_id);
  const decimalsOf = (currency: Currency | undefined) => currency?.decimals ?? 0;
  const [name, setName] = useState(existing?.conversion_name ?? '');
  const [currencyId, setCurrencyId] = useState(existing?.currency_id ?? '');
  const [endUser, setEndUser] = useState(existing ? draftOf(existing.end_user, decimalsOf(startCurrency)) : NO_REWARD);
  const [affiliate, setAffiliate] = useState(existing ? draftOf(existing.affiliate, decimalsOf(startCurrency)) : NO_REWARD);
  const [tiers, setTiers] = useState<TierDraft[]>(
    () =>
      existing?.tiers.map((tier, index) => ({
        key: index,
        audienceId: tier.audience_id,
        reward: draftOf(tier.affiliate, decimalsOf(startCurrency)),
        levels: levelDraftsOf(tier, decimalsOf(startCurrency)),
      })) ?? [],
  );
  const [levels, setLevels] = useState<LevelDrafts>(() => levelDraftsOf(existing, decimalsOf(startCurrency)));
  const [endUserAllowlist, setEndUserAllowlist] = useState(existing?.end_user_allowlist_audience_id ?? '');
  const [affiliateAllowlist, setAffiliateAllowlist] = useState(existing?.affiliate_allowlist_audience_id ?? '');
  const [holdDays, setHoldDays] = useState(String(existing?.hold_days ?? 0));
  const [requireApproval, setRequireApproval] = useState(existing?.require_approval ?? false);
  const [caps, setCaps] = useState<CapsDraft>(() => capsDraftOf(existing?.caps, decimalsOf(startCurrency)));
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  // New terms are saved, then opened at their own address (a new form): the confirmation travels with the navigation.
  const location = useLocation();
  const [saved, setSaved] = useState<string | null>((location.state as { saved?: string } | null)?.saved ?? null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const currency = currencies.find((choice) => choice.id === currencyId);

  const save = useMutation({
    mutationFn: ({ conversionName, body }: { conversionName: string; body: TermsBody }) =>
      api('put', '/api/v1/projects/{projectId}/payout-terms/{conversionName}', { path: { projectId, conversionName }, body }),
    onSuccess: async (terms) => {
      await queryClient.invalidateQueries({ queryKey: termsKey(projectId) });
      const message = `Saved the terms of ${terms.conversion_name}.`;
      if (existing) setSaved(message);
      else await navigate(`../edit/${encodeURIComponent(terms.conversion_name)}`, { relative: 'path', replace: true, state: { saved: message } });
    },
  });
  const remove = useMutation({
    mutationFn: (conversionName: string) =>
      api('delete', '/api/v1/projects/{projectId}/payout-terms/{conversionName}', { path: { projectId, conversionName } }),
    onSuccess: async () => {
      // Dropped, not just marked stale: the list must not show the deleted terms while it is read again.
      queryClient.removeQueries({ queryKey: termsKey(projectId) });
      await navigate('../..', { relative: 'path' });
    },
  });
  const errors = { ...fieldErrors(save.error), ...localErrors };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    const problems: Record<string, string> = {};
    const decimals = decimalsOf(currency);
    const read = (draft: RewardDraft, field: string): Reward | null => {
      const result = rewardOf(draft, decimals);
      if ('error' in result) {
        problems[field] = result.error;
        return null;
      }
      return result.reward;
    };
    if (name.trim() === '') problems.conversion_name = 'Name the conversion these terms pay for.';
    if (!currency) problems.currency_id = 'Choose the currency the terms pay in.';
    const hold = /^[0-9]{1,3}$/.test(holdDays.trim()) ? Number(holdDays.trim()) : NaN;
    if (!(hold >= 0 && hold <= 365)) problems.hold_days = 'Enter a whole number of days from 0 to 365.';
    const capped = capsOf(caps, decimals);
    Object.assign(problems, capped.problems);
    const body: TermsBody = {
      currency_id: currencyId,
      end_user: read(endUser, 'end_user'),
      affiliate: read(affiliate, 'affiliate'),
      affiliate2: read(levels[2], 'affiliate2'),
      affiliate3: read(levels[3], 'affiliate3'),
      affiliate4: read(levels[4], 'affiliate4'),
      tiers: tiers.map((tier, index) => {
        if (tier.audienceId === '') problems[`tiers[${index}].audience_id`] = 'Choose the tier audience.';
        return {
          audience_id: tier.audienceId,
          affiliate: read(tier.reward, `tiers[${index}].affiliate`) ?? { bps: 0 },
          affiliate2: read(tier.levels[2], `tiers[${index}].affiliate2`),
          affiliate3: read(tier.levels[3], `tiers[${index}].affiliate3`),
          affiliate4: read(tier.levels[4], `tiers[${index}].affiliate4`),
        };
      }),
      end_user_allowlist_audience_id: endUserAllowlist === '' ? null : endUserAllowlist,
      affiliate_allowlist_audience_id: affiliateAllowlist === '' ? null : affiliateAllowlist,
      hold_days: Number.isNaN(hold) ? 0 : hold,
      require_approval: requireApproval,
      caps: capped.caps,
    };
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    save.reset();
    save.mutate({ conversionName: name.trim(), body });
  };

  const updateTier = (key: number, change: Partial<TierDraft>) =>
    setTiers((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const nextKey = () => Math.max(-1, ...tiers.map((tier) => tier.key)) + 1;

  return (
    <form className="stack" onSubmit={submit} noValidate>
      <div>
        <label htmlFor="terms-name">Conversion name</label>
        <input
          id="terms-name"
          value={name}
          readOnly={existing !== undefined}
          onChange={(event) => setName(event.target.value)}
          aria-describedby="terms-name-help terms-name-error"
          aria-invalid={errors.conversion_name ? true : undefined}
        />
        <p id="terms-name-help" className="help">
          {existing
            ? 'Terms are kept per name: to pay another name, create new terms.'
            : 'The name your backend sends with each conversion, e.g. trade.'}
        </p>
        <FieldError id="terms-name-error" message={errors.conversion_name} />
      </div>
      <div>
        <label htmlFor="terms-currency">Currency</label>
        <select
          id="terms-currency"
          value={currencyId}
          onChange={(event) => setCurrencyId(event.target.value)}
          aria-describedby="terms-currency-error"
          aria-invalid={errors.currency_id ? true : undefined}
        >
          <option value="">Choose a currency</option>
          {currencies.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {currencyLabel(choice)}
            </option>
          ))}
        </select>
        <FieldError id="terms-currency-error" message={errors.currency_id} />
      </div>
      <RewardField
        id="terms-end-user"
        legend="End-user reward (the converting user)"
        draft={endUser}
        onChange={setEndUser}
        currency={currency}
        error={errorAt(errors, 'end_user')}
      />
      <RewardField
        id="terms-affiliate"
        legend="Affiliate reward (unless a tier below names the affiliate’s tier)"
        draft={affiliate}
        onChange={setAffiliate}
        currency={currency}
        error={errorAt(errors, 'affiliate')}
      />
      <h3>Referral levels</h3>
      <p className="help">
        An affiliate may itself have been referred by another: level 2 is the affiliate that referred the referring affiliate, levels 3 and 4 the two
        above it. Each level that pays earns its reward on every conversion (a tier below that names the referring affiliate’s tier replaces these).
      </p>
      {UPPER_LEVELS.map((level) => (
        <RewardField
          key={level}
          id={`terms-affiliate${level}`}
          legend={`Level ${level} reward`}
          draft={levels[level]}
          onChange={(draft) => setLevels((drafts) => ({ ...drafts, [level]: draft }))}
          currency={currency}
          error={errorAt(errors, levelField(level))}
        />
      ))}
      <h3>Allowlists</h3>
      <p className="help">
        Only members of the audience chosen (static or dynamic entries, when the conversion is processed) earn that reward. A master affiliate’s
        spread follows its affiliate.
      </p>
      <AllowlistField
        id="terms-end-user-allowlist"
        label="End users allowed to earn"
        value={endUserAllowlist}
        onChange={setEndUserAllowlist}
        audiences={audiences.data}
        error={errorAt(errors, 'end_user_allowlist_audience_id')}
      />
      <AllowlistField
        id="terms-affiliate-allowlist"
        label="Affiliates allowed to earn"
        value={affiliateAllowlist}
        onChange={setAffiliateAllowlist}
        audiences={audiences.data}
        error={errorAt(errors, 'affiliate_allowlist_audience_id')}
      />
      <h3>Holding and approval</h3>
      <p className="help">
        Movements wait (pending, in no claim check) until their hold has passed and, when approval is required, until you approve them; declined
        movements are never paid.
      </p>
      <div>
        <label htmlFor="terms-hold-days">Hold (days)</label>
        <input
          id="terms-hold-days"
          inputMode="numeric"
          value={holdDays}
          onChange={(event) => setHoldDays(event.target.value)}
          aria-describedby="terms-hold-days-help terms-hold-days-error"
          aria-invalid={errors.hold_days ? true : undefined}
        />
        <p id="terms-hold-days-help" className="help">
          0 to 365: how long after a conversion is processed its rewards become claimable. 0 pays at once.
        </p>
        <FieldError id="terms-hold-days-error" message={errors.hold_days} />
      </div>
      <div className="checkbox-field">
        <input type="checkbox" id="terms-require-approval" checked={requireApproval} onChange={(event) => setRequireApproval(event.target.checked)} />
        <label className="inline-label" htmlFor="terms-require-approval">
          Require approval (each conversion’s rewards wait until an admin approves or declines them)
        </label>
      </div>
      <h3>Caps</h3>
      <p className="help">
        The most these terms pay, in {currency ? `whole ${currency.name}` : 'whole tokens of the currency'}; leave a cap blank for none. What a cap
        cuts is recorded on the movement and never paid later.
      </p>
      <CapField
        id="terms-cap-per-conversion"
        label="Per conversion (each reward of one conversion)"
        value={caps.perConversion}
        onChange={(perConversion) => setCaps((draft) => ({ ...draft, perConversion }))}
        help="No single reward of a conversion (the end user’s, the affiliate’s, a master’s spread) pays more."
        error={errors['caps.per_conversion']}
      />
      <CapField
        id="terms-cap-per-end-user"
        label="Per end user (lifetime)"
        value={caps.perEndUser}
        onChange={(perEndUser) => setCaps((draft) => ({ ...draft, perEndUser }))}
        help="The most one converting user earns under these terms, ever (declined rewards do not count)."
        error={errors['caps.per_end_user']}
      />
      <CapField
        id="terms-cap-window-amount"
        label="Per affiliate, over a rolling window"
        value={caps.windowAmount}
        onChange={(windowAmount) => setCaps((draft) => ({ ...draft, windowAmount }))}
        help="The most one affiliate earns under these terms over the last days below (declined rewards do not count)."
        error={errors['caps.per_affiliate_window.amount']}
      />
      <CapField
        id="terms-cap-window-days"
        label="Window (days)"
        value={caps.windowDays}
        onChange={(windowDays) => setCaps((draft) => ({ ...draft, windowDays }))}
        help="1 to 365, with the affiliate cap above; blank with it for no window."
        error={errors['caps.per_affiliate_window.days']}
      />
      <h3>Tier rewards</h3>
      <p className="help">
        An affiliate whose active tier is one of these audiences earns its reward instead of the affiliate reward above, and its upline earns the
        tier’s level rewards instead of the levels above (a level the tier leaves at Nothing is not paid).
      </p>
      {audiences.isError ? <LoadError query={audiences} title="The audiences could not be read" /> : null}
      {tiers.length === 0 ? <p className="subtle">No tier rewards.</p> : null}
      {tiers.map((tier, index) => (
        <div key={tier.key} className="panel stack">
          <div>
            <label htmlFor={`tier-${tier.key}-audience`}>Tier {index + 1}: audience</label>
            <select
              id={`tier-${tier.key}-audience`}
              value={tier.audienceId}
              onChange={(event) => updateTier(tier.key, { audienceId: event.target.value })}
              aria-describedby={`tier-${tier.key}-audience-error`}
            >
              <option value="">Choose an audience</option>
              {/* An audience no longer listed (deleted) stays selectable under its id. */}
              {tier.audienceId !== '' && audiences.data && !audiences.data.some((audience) => audience.id === tier.audienceId) ? (
                <option value={tier.audienceId}>{tier.audienceId}</option>
              ) : null}
              {audiences.data?.map((audience) => (
                <option key={audience.id} value={audience.id}>
                  {audience.tier_rank === null ? audience.name : `${audience.name} (tier rank ${audience.tier_rank})`}
                </option>
              ))}
            </select>
            <FieldError id={`tier-${tier.key}-audience-error`} message={errorAt(errors, `tiers[${index}].audience_id`)} />
          </div>
          <RewardField
            id={`tier-${tier.key}-reward`}
            legend={`Tier ${index + 1}: affiliate reward`}
            draft={tier.reward}
            allowNone={false}
            onChange={(reward) => updateTier(tier.key, { reward })}
            currency={currency}
            error={errorAt(errors, `tiers[${index}].affiliate`)}
          />
          {UPPER_LEVELS.map((level) => (
            <RewardField
              key={level}
              id={`tier-${tier.key}-affiliate${level}`}
              legend={`Tier ${index + 1}: level ${level} reward`}
              draft={tier.levels[level]}
              onChange={(draft) => updateTier(tier.key, { levels: { ...tier.levels, [level]: draft } })}
              currency={currency}
              error={errorAt(errors, `tiers[${index}].${levelField(level)}`)}
            />
          ))}
          <div>
            <button type="button" onClick={() => setTiers((rows) => rows.filter((row) => row.key !== tier.key))}>
              Remove tier {index + 1}
            </button>
          </div>
        </div>
      ))}
      <div>
        <button
          type="button"
          onClick={() =>
            setTiers((rows) => [
              ...rows,
              { key: nextKey(), audienceId: '', reward: { kind: 'fixed', amount: '', bps: '' }, levels: levelDraftsOf(undefined, 0) },
            ])
          }
        >
          Add a tier reward
        </button>
      </div>
      {save.isError ? <ErrorMessage error={save.error} title="The terms were not saved" shownAt={shownAtInput} /> : null}
      <p role="status" className="upload-result">
        {saved}
      </p>
      <div className="filter-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save terms'}
        </button>
        {existing && !confirmingDelete ? (
          <button type="button" onClick={() => setConfirmingDelete(true)}>
            Delete these terms
          </button>
        ) : null}
      </div>
      {existing && confirmingDelete ? (
        <div className="panel" role="group" aria-labelledby="confirm-delete-text">
          <p id="confirm-delete-text">
            Delete the terms of <strong>{existing.conversion_name}</strong>? Conversions of this name processed from then on pay nothing (no_terms);
            what was already paid stays.
          </p>
          {remove.isError ? <ErrorMessage error={remove.error} title="The terms were not deleted" /> : null}
          <div className="filter-actions">
            <button type="button" className="danger" onClick={() => remove.mutate(existing.conversion_name)} disabled={remove.isPending}>
              {remove.isPending ? 'Deleting…' : 'Yes, delete'}
            </button>
            <button type="button" onClick={() => setConfirmingDelete(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </form>
  );
}

/** One cap's input: a text field with its help and its error. */
function CapField({
  id,
  label,
  value,
  onChange,
  help,
  error,
}: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  help: string;
  error: string | undefined;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={`${id}-help ${id}-error`}
        aria-invalid={error ? true : undefined}
      />
      <p id={`${id}-help`} className="help">
        {help}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** An optional allowlist: every user, or only the members of one audience of the project (listed by name). */
function AllowlistField({
  id,
  label,
  value,
  onChange,
  audiences,
  error,
}: {
  id: string;
  label: string;
  /** The audience id, or '' for everyone. */
  value: string;
  onChange(value: string): void;
  audiences: Audience[] | undefined;
  error: string | undefined;
}) {
  const byName = audiences ? [...audiences].sort((a, b) => a.name.localeCompare(b.name)) : undefined;
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={`${id}-help ${id}-error`}
        aria-invalid={error ? true : undefined}
      >
        <option value="">Everyone (no allowlist)</option>
        {/* An audience no longer listed (deleted: nobody is its member, so nobody earns) stays shown under its id. */}
        {value !== '' && byName && !byName.some((audience) => audience.id === value) ? (
          <option value={value}>{`${value} (no longer an audience)`}</option>
        ) : null}
        {byName?.map((audience) => (
          <option key={audience.id} value={audience.id}>
            {`Members of ${audience.name}${audience.type === 'dynamic' ? ' (dynamic)' : ''}`}
          </option>
        ))}
      </select>
      <p id={`${id}-help`} className="help">
        {value === ''
          ? 'Everyone may earn this reward.'
          : 'Only members of this audience earn this reward; others are shown as not eligible on the conversion.'}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
