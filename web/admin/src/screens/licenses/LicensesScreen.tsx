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
import { ShopTime } from '../../app/shop-dates';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { FormError } from '../../ui/Field';
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
    <Page title={strings.common.licenses}>
      <LicenseFilters list={list} shopId={shopId} />
      {list.result.error instanceof ApiError && list.result.error.status === 400 ? (
        <FormError error={list.result.error} />
      ) : list.result.error ? (
        <LoadError error={list.result.error} retry={() => list.result.refetch()} />
      ) : null}
      <DataTable
        caption={strings.common.licenses}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(l) => l.id}
        href={(l) => shopPath(`/licenses/${l.id}`)}
        empty={filtered ? strings.licenses.noLicenseMatchesThese : strings.licenses.noLicensesYetA}
        columns={[
          { header: strings.common.key, cell: (l) => <code className="licenses-key">{l.licenseKey}</code> },
          {
            header: strings.common.status,
            cell: (l) => <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>,
          },
          { header: strings.common.product, cell: (l) => names.data?.get(l.productId) ?? `#${l.productId}` },
          { header: strings.common.buyer, cell: (l: LicenseSummary) => l.email },
          { header: strings.common.activations, className: 'num', cell: (l) => activationText(l) },
          { header: strings.common.expires, cell: (l) => <ShopTime iso={l.expiresAt} none={strings.common.never} /> },
          { header: strings.common.issued, cell: (l) => <ShopTime iso={l.createdAt} /> },
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
    productOptions.unshift([productId, strings.licenses.product(productId)]);
  const email = list.filters.email;
  return (
    <div className="toolbar licenses-toolbar">
      <SearchBox value={list.search} onChange={list.setSearch} label={strings.licenses.searchByKeyOr} />
      <FilterSelect
        list={list}
        name="status"
        label={strings.common.status}
        options={licenseStatuses.map((s) => [s, licenseStatusLabels[s]] as const)}
      />
      <FilterSelect list={list} name="productId" label={strings.common.product} options={productOptions} />
      {email ? (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => list.setFilter('email', undefined)}
          aria-label={strings.licenses.removeTheFilterOn(email)}
        >
          {strings.licenses.buyer(email)}
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
          {strings.common.clearFilters}
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
      notify(strings.licenses.signingKeyRotated);
    },
  });
  return (
    <Card
      title={strings.licenses.tokenSigningKeys}
      actions={
        <ConfirmButton
          label={rotate.isPending ? strings.licenses.rotating : strings.licenses.rotateSigningKey}
          question={strings.licenses.makeANewSigning}
          onConfirm={() => rotate.mutate()}
          disabled={rotate.isPending}
        />
      }
    >
      <div className="stack">
        <p className="muted small">
          {strings.licenses.eachValidationAndActivation}
          <code>{strings.licenses.v2PublicShopsLicenses(shopId)}</code>
          {strings.licenses.rotateTheKeyIf}
        </p>
        <FormError error={rotate.error} />
        {keys.error ? <LoadError error={keys.error} retry={() => keys.refetch()} /> : null}
        <DataTable
          caption={strings.licenses.signingKeys}
          rows={keys.data ?? []}
          loading={keys.isLoading}
          rowKey={(k) => k.kid}
          empty={strings.licenses.noKeyYetThe}
          columns={[
            { header: strings.licenses.keyId, cell: (k) => <code className="licenses-key">{k.kid}</code> },
            {
              header: strings.common.state,
              cell: (k) =>
                k.current ? (
                  <Badge tone="ok">{strings.licenses.current}</Badge>
                ) : (
                  <Badge tone="muted">{strings.licenses.retired}</Badge>
                ),
            },
            { header: strings.common.created, cell: (k) => <ShopTime iso={k.createdAt} /> },
            { header: strings.licenses.retired, cell: (k) => <ShopTime iso={k.retiredAt} /> },
          ]}
        />
      </div>
    </Card>
  );
}
