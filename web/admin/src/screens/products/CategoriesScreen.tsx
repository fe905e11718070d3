import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useShop } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { count, dateTime } from '../../ui/format';
import { type Column, DataTable, Pager, SearchBox, useList } from '../../ui/list';
import { LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { type Category, listingTitle, useAllListings } from './catalog';
import './catalog.css';
import { Picker } from './Picker';

export default function CategoriesScreen() {
  const { shopId } = useShop();
  const [editing, setEditing] = useState<Category | 'new' | null>(null);
  const listings = useAllListings(shopId);
  const names = listings.data ? new Map(listings.data.map((l) => [l.id, listingTitle(l)])) : undefined;
  const list = useList<Category>(['shop', shopId, 'categories', 'list'], (query) =>
    unwrap(api.GET('/self/{shopId}/categories', { params: { path: { shopId }, query } })),
  );
  const columns: Column<Category>[] = [
    {
      header: 'Name',
      cell: (c) => (
        <button type="button" className="catalog-link" onClick={() => setEditing(c)}>
          {c.name}
        </button>
      ),
    },
    { header: 'Listings', className: 'num', cell: (c) => count(c.listingIds.length) },
    {
      header: 'First listings',
      cell: (c) =>
        c.listingIds
          .slice(0, 3)
          .map((id) => names?.get(id) ?? `#${id}`)
          .join(', ') + (c.listingIds.length > 3 ? ', …' : '') || '—',
    },
    { header: 'Updated', cell: (c) => dateTime(c.updatedAt) },
  ];
  return (
    <Page
      title="Categories"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add category
        </button>
      }
    >
      <p className="muted">A category gathers storefront listings (products and groups) under a name.</p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search categories" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        rows={list.rows}
        columns={columns}
        rowKey={(c) => c.id}
        list={list}
        loading={list.result.isPending}
        caption="Categories"
        empty={list.search ? 'No category matches this search.' : 'No categories yet.'}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' || editing === null ? 'New category' : `Category: ${editing.name}`}
        wide
      >
        {editing !== null ? (
          <CategoryForm
            key={editing === 'new' ? 'new' : editing.id}
            category={editing === 'new' ? null : editing}
            names={names}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Dialog>
    </Page>
  );
}

function CategoryForm(props: {
  category: Category | null;
  names: ReadonlyMap<number, string> | undefined;
  onDone: () => void;
}) {
  const { shopId } = useShop();
  const queryClient = useQueryClient();
  const notify = useToast();
  const c = props.category;
  const [name, setName] = useState(c?.name ?? '');
  const [listingIds, setListingIds] = useState<number[]>(c?.listingIds ?? []);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'categories'] });

  const save = useMutation({
    mutationFn: () => {
      const body = { name, listingIds };
      return c
        ? unwrap(
            api.PUT('/self/{shopId}/categories/{categoryId}', { params: { path: { shopId, categoryId: c.id } }, body }),
          )
        : unwrap(api.POST('/self/{shopId}/categories', { params: { path: { shopId } }, body }));
    },
    onSuccess: async () => {
      notify(c ? 'Category saved' : 'Category created');
      await invalidate();
      props.onDone();
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/self/{shopId}/categories/{categoryId}', { params: { path: { shopId, categoryId: c!.id } } })),
    onSuccess: async () => {
      notify('Category deleted');
      await invalidate();
      props.onDone();
    },
  });

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <FormError error={save.error} fields={['name', 'listingIds']} />
      <FormError error={remove.error} />
      <Field label="Name" error={fieldError(save.error, 'name')}>
        {(ids) => <input {...ids} className="input" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Picker
        noun="listing"
        legend="Listings in the category"
        chosen={listingIds}
        onChange={setListingIds}
        names={props.names}
        error={fieldError(save.error, 'listingIds')}
        searchKey={['shop', shopId, 'listings', 'picker']}
        search={async (text) => {
          const page = await unwrap(
            api.GET('/self/{shopId}/listings', {
              params: { path: { shopId }, query: { pageSize: 20, ...(text ? { searchString: text } : {}) } },
            }),
          );
          return {
            totalCount: page.totalCount,
            items: page.items.map((l) => ({
              id: l.id,
              title: listingTitle(l),
              detail: l.type === 'group' ? 'group' : 'product',
            })),
          };
        }}
      />
      <div className="catalog-actions">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
        {c ? (
          <ConfirmButton
            label="Delete category"
            question={`Delete the category "${c.name}"? Its listings stay on the storefront.`}
            onConfirm={() => remove.mutate()}
            danger
            disabled={remove.isPending}
          />
        ) : null}
      </div>
    </form>
  );
}
