import { useSearchParams } from 'wouter';
import { useAffiliateList, useAffiliateStats, useDisableReferral } from '../../api/queries/affiliates';
import { useShopId, useShopPath } from '../../app/shop';
import { useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { count, money } from '../../ui/format';
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
    <Page title={strings.common.affiliates}>
      <ReferralStats shopId={shopId} />
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.affiliates.searchEMailOr} />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.affiliates.customersWhoseReferralCode}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(a) => a.customerId}
        href={(a) => shopPath(`/customers/${a.customerId}`)}
        empty={strings.affiliates.noReferralHasBrought}
        columns={[
          { header: strings.common.customer, cell: (a) => a.email },
          { header: strings.common.referralCode, cell: (a) => <code>{a.referralCode}</code> },
          { header: strings.affiliates.referredOrders, className: 'num', cell: (a) => count(a.referredOrders) },
          {
            header: strings.affiliates.referredRevenue,
            className: 'num',
            cell: (a) => money(a.referredRevenue, a.currency),
          },
          { header: strings.affiliates.commissionEarned, className: 'num', cell: (a) => money(a.earned, a.currency) },
          {
            header: strings.affiliates.referral,
            cell: (a) =>
              a.disabled ? (
                <Badge tone="muted">{strings.common.disabled}</Badge>
              ) : (
                <ConfirmButton
                  label={strings.affiliates.disableReferral}
                  danger
                  question={strings.affiliates.stopPayingCommissionOn(a.email)}
                  disabled={disable.isPending}
                  onConfirm={() =>
                    disable.mutate(a.customerId, {
                      onSuccess: (customer) => notify(strings.affiliates.referralDisabledFor(customer.email)),
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
  const { date } = useShopDates();
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
      title={s ? strings.affiliates.referralsRange(date(s.fromDate), date(s.toDate)) : strings.affiliates.referrals}
      actions={
        <div className="row">
          <label className="check small">
            {strings.common.from}
            <input
              type="date"
              className="input"
              value={fromDate}
              max={toDate || undefined}
              onChange={(e) => setRange('from', e.target.value)}
            />
          </label>
          <label className="check small">
            {strings.common.to}
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
          <Stat label={strings.affiliates.commissionRate} value={`${s.percentage} %`} />
          <Stat label={strings.affiliates.activeAffiliates} value={count(s.activeAffiliates)} />
          <Stat label={strings.affiliates.referredOrders} value={count(s.referredOrders)} />
          <Stat label={strings.affiliates.referredRevenue} value={money(s.referredRevenue, s.currency)} />
          <Stat label={strings.affiliates.commissionPaid} value={money(s.commissionPaid, s.currency)} />
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
