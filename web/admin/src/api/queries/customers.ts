import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { useList } from './list';

type CustomerList = paths['/self/{shopId}/customers']['get'];
export type Customer = CustomerList['responses'][200]['content']['application/json']['data']['items'][number];
type CustomerListQuery = NonNullable<CustomerList['parameters']['query']>;
type CustomerOrder = NonNullable<CustomerListQuery['orderBy']>;
const customerOrders: readonly CustomerOrder[] = ['createdAt', '-createdAt', 'email', '-email', 'balance', '-balance'];
const isCustomerOrder = (value: string | undefined): value is CustomerOrder =>
  customerOrders.includes(value as CustomerOrder);

/** The customer list: search, the joined-between dates and sort in the URL, paged by cursor. */
export function useCustomerList(shopId: number) {
  return useList<Customer>(
    queryKeys.customers.list(shopId),
    (query) => {
      const q: CustomerListQuery = { pageSize: query.pageSize };
      if (query.searchString) q.searchString = query.searchString;
      if (query.cursor) q.cursor = query.cursor;
      if (isCustomerOrder(query.orderBy)) q.orderBy = query.orderBy;
      if (query.fromDate) q.fromDate = String(query.fromDate);
      if (query.toDate) q.toDate = String(query.toDate);
      return unwrap(api.GET('/self/{shopId}/customers', { params: { path: { shopId }, query: q } }));
    },
    { filters: ['fromDate', 'toDate'], cursor: true, defaultOrder: '-createdAt' },
  );
}

export function useCustomer(shopId: number, customerId: number) {
  return useQuery({
    queryKey: queryKeys.customers.detail(shopId, customerId),
    queryFn: () =>
      unwrap(api.GET('/self/{shopId}/customers/{customerId}', { params: { path: { shopId, customerId } } })),
  });
}

/** The IP addresses a customer bought from, 10 a page. */
export function useCustomerIps(shopId: number, customerId: number, pageNumber: number) {
  return useQuery({
    queryKey: queryKeys.customers.ips(shopId, customerId, pageNumber),
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/customers/{customerId}/ips', {
          params: { path: { shopId, customerId }, query: { pageNumber, pageSize: 10 } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** The figures of `/customers/stats`, over the dates given (else the API's last 30 days). */
export function useCustomerStats(shopId: number, range: { fromDate?: string; toDate?: string }) {
  return useQuery({
    queryKey: queryKeys.customers.stats(shopId, range),
    queryFn: () => unwrap(api.GET('/self/{shopId}/customers/stats', { params: { path: { shopId }, query: range } })),
  });
}

/** After a balance moved: the customer shows the new balance, and the customer lists are read again. */
export function useBalanceChanged(shopId: number) {
  const queryClient = useQueryClient();
  return (customer: Customer, balance: number) => {
    queryClient.setQueryData(queryKeys.customers.detail(shopId, customer.id), { ...customer, balance });
    void queryClient.invalidateQueries({ queryKey: queryKeys.customers.all(shopId) });
  };
}
