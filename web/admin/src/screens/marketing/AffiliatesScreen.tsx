import { useSearchParams } from 'wouter';
import { useAffiliateList, useAffiliateStats, useDisableReferral } from '../../api/queries/affiliates';
import { useShopId, useShopPath } from '../../app/shop';
import { ConfirmButton } from '../../ui/Dialog';
import { count, date, money } from '../../ui/format';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './marketing.css';

export default function AffiliatesScreen() {
  const shopId = useShopId();
  const shopPath = useShopPath();
  const notify = useToast();
  const list = useAffiliateList(shopId);
  const disable = useDisableReferral(shopId);

  return (
    <Page title="Affiliates">
      <ReferralStats shopId={shopId} />
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search e-mail or referral code" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Customers whose referral code brought orders"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(a) => a.customerId}
        href={(a) => shopPath(`/customers/${a.customerId}`)}
        empty="No referral has brought an order yet."
        columns={[
          { header: 'Customer', cell: (a) => a.email },
          { header: 'Referral code', cell: (a) => <code>{a.referralCode}</code> },
          { header: 'Referred orders', className: 'num', cell: (a) => count(a.referredOrders) },
          { header: 'Referred revenue', className: 'num', cell: (a) => money(a.referredRevenue, a.currency) },
          { header: 'Commission earned', className: 'num', cell: (a) => money(a.earned, a.currency) },
          {
            header: 'Referral',
            cell: (a) =>
              a.disabled ? (
                <Badge tone="muted">Disabled</Badge>
              ) : (
                <ConfirmButton
                  label="Disable referral"
                  danger
                  question={`Stop paying commission on ${a.email}'s referrals?`}
                  disabled={disable.isPending}
                  onConfirm={() =>
                    disable.mutate(a.customerId, {
                      onSuccess: (customer) => notify(`Referral disabled for ${customer.email}`),
                      onError: (error) => notify(error.message, 'bad'),
                    })
                  }
                />
              ),
          },
        ]}
      />
      <Pager list={list} />
    </Page>
  );
}

/** The referral figures over a range kept in the URL (`from`, `to`); the API's default is the last 30 days. */
function ReferralStats(props: { shopId: number }) {
  const { shopId } = props;
  const [params, setParams] = useSearchParams();
  const fromDate = params.get('from') ?? '';
  const toDate = params.get('to') ?? '';
  const stats = useAffiliateStats(shopId, fromDate, toDate);
  const setRange = (name: 'from' | 'to', value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(name, value);
      else next.delete(name);
      return next;
    });
  const s = stats.data;
  return (
    <Card
      title={s ? `Referrals ${date(s.fromDate)} – ${date(s.toDate)}` : 'Referrals'}
      actions={
        <div className="row">
          <label className="check small">
            From
            <input
              type="date"
              className="input"
              value={fromDate}
              max={toDate || undefined}
              onChange={(e) => setRange('from', e.target.value)}
            />
          </label>
          <label className="check small">
            To
            <input
              type="date"
              className="input"
              value={toDate}
              min={fromDate || undefined}
              onChange={(e) => setRange('to', e.target.value)}
            />
          </label>
        </div>
      }
    >
      {stats.error ? <LoadError error={stats.error} retry={() => stats.refetch()} /> : null}
      {!s && !stats.error ? <Loading /> : null}
      {s ? (
        <div className="marketing-stats">
          <Stat label="Commission rate" value={`${s.percentage} %`} />
          <Stat label="Active affiliates" value={count(s.activeAffiliates)} />
          <Stat label="Referred orders" value={count(s.referredOrders)} />
          <Stat label="Referred revenue" value={money(s.referredRevenue, s.currency)} />
          <Stat label="Commission paid" value={money(s.commissionPaid, s.currency)} />
        </div>
      ) : null}
    </Card>
  );
}

function Stat(props: { label: string; value: string }) {
  return (
    <div className="stat">
      <span className="stat-value">{props.value}</span>
      <span className="stat-label">{props.label}</span>
    </div>
  );
}
