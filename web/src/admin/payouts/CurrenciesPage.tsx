import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiBody } from '../../api/client';
import { FieldError, useFieldErrors } from '../../ui/field-errors';
import { formatDateTime } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ErrorMessage, ListStates } from '../../ui/states';
import { useProject } from '../session';
import { currenciesKey } from './currencies';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

const PAGE_SIZE = 25;
const NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';

type CurrencyBody = ApiBody<'/api/v1/projects/{projectId}/currencies', 'post'>;

/** The currencies the project pays in, oldest first, and the form that adds one. */
export function CurrenciesPage() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const currencies = useQuery({
    queryKey: [...currenciesKey(projectId), page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/currencies', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h2 id="currencies-title">Currencies</h2>
      <ListStates query={currencies} loading="Loading currencies…" empty="No currencies yet: add the first one below." />
      {currencies.data && currencies.data.results.length > 0 ? (
        <>
          <ScrollTable
            labelledBy="currencies-title"
            caption="The currencies the project pays in, oldest first"
            columns={['Name', 'Type', numeric('Chain'), 'Address', numeric('Decimals'), 'Added']}
          >
            {currencies.data.results.map((currency) => (
              <tr key={currency.id}>
                <td>{currency.name}</td>
                <td>{currency.type}</td>
                <td className="number">{currency.chain_id ?? '—'}</td>
                <td className="identifier">{currency.address ?? '—'}</td>
                <td className="number">{currency.decimals}</td>
                <td>{formatDateTime(currency.created_at)}</td>
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Currency pages" list={currencies.data} onPage={(next) => setParams({ page: String(next) })} />
        </>
      ) : null}
      <AddCurrency />
    </>
  );
}

function AddCurrency() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [type, setType] = useState<CurrencyBody['type']>('erc20');
  const [chainId, setChainId] = useState('');
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');
  const [decimals, setDecimals] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (body: CurrencyBody) => api('post', '/api/v1/projects/{projectId}/currencies', { path: { projectId }, body }),
    onSuccess: async (currency) => {
      setAdded(currency.chain_id === null ? `Added ${currency.name} (points).` : `Added ${currency.name} on chain ${currency.chain_id}.`);
      setChainId('');
      setAddress('');
      setName('');
      setDecimals('');
      await queryClient.invalidateQueries({ queryKey: currenciesKey(projectId) });
    },
  });
  // A field's problem goes when it is edited; the banner with the last of them.
  const { errors, error, edited } = useFieldErrors(add.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    // Numbers as typed: the API says what is wrong with them, at their field. Points have no chain and no address.
    if (type === 'point') {
      add.mutate({ type, name: name.trim(), decimals: 0 });
      return;
    }
    add.mutate({
      type,
      chain_id: chainId.trim() === '' ? Number.NaN : Number(chainId),
      address: type === 'native' ? NATIVE_ADDRESS : address.trim(),
      name: name.trim(),
      decimals: decimals.trim() === '' ? Number.NaN : Number(decimals),
    });
  };

  const field = (
    id: string,
    label: string,
    value: string,
    onChange: (value: string) => void,
    apiField: string,
    help?: string,
    inputMode?: 'numeric',
  ) => (
    <div>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        inputMode={inputMode}
        onChange={(event) => {
          edited(apiField);
          onChange(event.target.value);
        }}
        aria-invalid={errors[apiField] ? true : undefined}
        aria-describedby={`${help ? `${id}-help ` : ''}${id}-error`}
      />
      {help ? (
        <p id={`${id}-help`} className="help">
          {help}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={errors[apiField]} />
    </div>
  );

  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-labelledby="add-currency-title">
      <h3 id="add-currency-title">Add a currency</h3>
      <div>
        <label htmlFor="currency-type">Type</label>
        <select id="currency-type" value={type} onChange={(event) => setType(event.target.value as CurrencyBody['type'])}>
          <option value="erc20">ERC-20 token</option>
          <option value="native">Native coin of the chain</option>
          <option value="point">Points (whole points on no chain, one per project)</option>
        </select>
        <FieldError message={errors.type} />
      </div>
      {type === 'point' ? (
        <p className="help">Points live on no chain and count whole points; they are credited to a balance, never claimed.</p>
      ) : (
        <>
          {field('currency-chain', 'Chain id', chainId, setChainId, 'chain_id', 'The EVM chain id, e.g. 1 (Ethereum) or 8453 (Base).', 'numeric')}
          {type === 'erc20' ? (
            field('currency-address', 'Token contract address', address, setAddress, 'address', '0x followed by 40 hex digits.')
          ) : (
            <p className="help">A native coin has the address {NATIVE_ADDRESS}.</p>
          )}
        </>
      )}
      {field('currency-name', 'Name', name, setName, 'name', type === 'point' ? 'As people know them, e.g. XP.' : 'As people know it, e.g. USDC.')}
      {type === 'point'
        ? null
        : field(
            'currency-decimals',
            'Decimals',
            decimals,
            setDecimals,
            'decimals',
            'Base units in one whole token, as a power of ten: 6 for USDC, 18 for ETH.',
            'numeric',
          )}
      {add.isError && error ? <ErrorMessage error={error} title="The currency was not added" showDetails={false} /> : null}
      <p role="status" className="upload-result">
        {added}
      </p>
      <div>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add currency'}
        </button>
      </div>
    </form>
  );
}
