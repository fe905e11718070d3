import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import {
  type LicenseSummary,
  licenseFilters,
  licenseStatuses,
  useLicenseList,
  useSigningKeys,
} from '../../api/queries/licenses';
import type { ListState } from '../../api/queries/list';
import { useProductChoices, useProductNames } from '../../api/queries/products';
import { useShop, useShopPath } from '../../app/shop';
import { ConfirmButton } from '../../ui/Dialog';
import { FormError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable, FilterSelect, Pager, SearchBox } from '../../ui/list';
import { Badge, Card, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { activationText, licenseStatusLabels, licenseStatusTones } from './licenses';
import './licenses.css';

/** The licences sold (one per unit of a licensed variant), and the keys their tokens are signed with. */
export default function LicensesScreen() {
  const { shopId } = useShop();
  const shopPath = useShopPath();
  const list = useLicenseList(shopId);
  const names = useProductNames(shopId);
  const filtered = Object.keys(list.filters).length > 0 || list.search !== '';

  return (
    <Page title="Licenses">
      <LicenseFilters list={list} shopId={shopId} />
      {list.result.error instanceof ApiError && list.result.error.status === 400 ? (
        <FormError error={list.result.error} />
      ) : list.result.error ? (
        <LoadError error={list.result.error} retry={() => list.result.refetch()} />
      ) : null}
      <DataTable
        caption="Licenses"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(l) => l.id}
        href={(l) => shopPath(`/licenses/${l.id}`)}
        empty={
          filtered
            ? 'No license matches these filters.'
            : 'No licenses yet. A variant with "Issue a license per unit" issues one for each unit sold.'
        }
        columns={[
          { header: 'Key', cell: (l) => <code className="licenses-key">{l.licenseKey}</code> },
          {
            header: 'Status',
            cell: (l) => <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>,
          },
          { header: 'Product', cell: (l) => names.data?.get(l.productId) ?? `#${l.productId}` },
          { header: 'Buyer', cell: (l: LicenseSummary) => l.email },
          { header: 'Activations', className: 'num', cell: (l) => activationText(l) },
          { header: 'Expires', cell: (l) => (l.expiresAt ? dateTime(l.expiresAt) : 'Never') },
          { header: 'Issued', cell: (l) => dateTime(l.createdAt) },
        ]}
      />
      <Pager list={list} />
      <SigningKeys shopId={shopId} />
    </Page>
  );
}

function LicenseFilters(props: { list: ListState<LicenseSummary>; shopId: number }) {
  const { list } = props;
  const products = useProductChoices(props.shopId);
  const productId = list.filters.productId;
  const productOptions: [string, string][] = (products.data?.items ?? []).map((p) => [String(p.id), p.title]);
  if (productId && !productOptions.some(([id]) => id === productId))
    productOptions.unshift([productId, `Product #${productId}`]);
  const email = list.filters.email;
  return (
    <div className="toolbar licenses-toolbar">
      <SearchBox value={list.search} onChange={list.setSearch} label="Search by key or e-mail" />
      <FilterSelect
        list={list}
        name="status"
        label="Status"
        options={licenseStatuses.map((s) => [s, licenseStatusLabels[s]] as const)}
      />
      <FilterSelect list={list} name="productId" label="Product" options={productOptions} />
      {email ? (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => list.setFilter('email', undefined)}
          aria-label={`Remove the filter on buyer ${email}`}
        >
          Buyer {email} ✕
        </button>
      ) : null}
      {Object.keys(list.filters).length > 0 ? (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => {
            for (const name of licenseFilters) list.setFilter(name, undefined);
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

/** The Ed25519 keys the licence tokens are signed with, and their rotation. */
function SigningKeys(props: { shopId: number }) {
  const { shopId } = props;
  const keys = useSigningKeys(shopId);
  const queryClient = useQueryClient();
  const notify = useToast();
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/self/{shopId}/licenses/signing-keys/rotate', { params: { path: { shopId } } })),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.licenses.signingKeys(shopId), next);
      notify('Signing key rotated');
    },
  });
  return (
    <Card
      title="Token signing keys"
      actions={
        <ConfirmButton
          label={rotate.isPending ? 'Rotating…' : 'Rotate signing key'}
          question="Make a new signing key? New tokens are signed with it; tokens signed with the old key stay valid until they expire, and the JWKS keeps listing it until then."
          onConfirm={() => rotate.mutate()}
          disabled={rotate.isPending}
        />
      }
    >
      <div className="stack">
        <p className="muted small">
          Each validation and activation answers a token signed with the current key, which your program can check
          offline against the shop's JWKS (<code>/v2/public/shops/{shopId}/licenses/jwks</code>). Rotate the key if you
          think it leaked.
        </p>
        <FormError error={rotate.error} />
        {keys.error ? <LoadError error={keys.error} retry={() => keys.refetch()} /> : null}
        <DataTable
          caption="Signing keys"
          rows={keys.data ?? []}
          loading={keys.isLoading}
          rowKey={(k) => k.kid}
          empty="No key yet: the first one is made when a token is first issued."
          columns={[
            { header: 'Key id', cell: (k) => <code className="licenses-key">{k.kid}</code> },
            {
              header: 'State',
              cell: (k) => (k.current ? <Badge tone="ok">Current</Badge> : <Badge tone="muted">Retired</Badge>),
            },
            { header: 'Created', cell: (k) => dateTime(k.createdAt) },
            { header: 'Retired', cell: (k) => (k.retiredAt ? dateTime(k.retiredAt) : '—') },
          ]}
        />
      </div>
    </Card>
  );
}
