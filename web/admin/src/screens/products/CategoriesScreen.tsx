import { useController } from 'react-hook-form';
import { type Category, categories } from '../../api/queries/categories';
import { queryKeys } from '../../api/queries/keys';
import { searchListings, useAllListings } from '../../api/queries/listings';
import { useShop } from '../../app/shop';
import type { BodyForm } from '../../forms/body-form';
import { Field } from '../../ui/Field';
import { count, dateTime } from '../../ui/format';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import { listingTitle } from './catalog';
import './catalog.css';
import { Picker } from './Picker';

type CategoryValues = { name: string; listingIds: number[] };

/** Listing titles by id (every listing, read once for the screen). */
function useListingNames(shopId: number): ReadonlyMap<number, string> | undefined {
  const listings = useAllListings(shopId);
  return listings.data ? new Map(listings.data.map((l) => [l.id, listingTitle(l)])) : undefined;
}

function FirstListings(props: { category: Category }) {
  const { shopId } = useShop();
  const names = useListingNames(shopId);
  const ids = props.category.listingIds;
  return (
    <>
      {ids
        .slice(0, 3)
        .map((id) => names?.get(id) ?? `#${id}`)
        .join(', ') + (ids.length > 3 ? ', …' : '') || '—'}
    </>
  );
}

const config: ResourceScreenConfig<typeof categories, CategoryValues> = {
  resource: categories,
  title: 'Categories',
  addLabel: 'Add category',
  intro: 'A category gathers storefront listings (products and groups) under a name.',
  searchLabel: 'Search categories',
  caption: 'Categories',
  empty: (search) => (search ? 'No category matches this search.' : 'No categories yet.'),
  rowKey: (c) => c.id,
  columns: (open) => [
    {
      header: 'Name',
      cell: (c) => (
        <button type="button" className="catalog-link" onClick={() => open(c)}>
          {c.name}
        </button>
      ),
    },
    { header: 'Listings', className: 'num', cell: (c) => count(c.listingIds.length) },
    { header: 'First listings', cell: (c) => <FirstListings category={c} /> },
    { header: 'Updated', cell: (c) => dateTime(c.updatedAt) },
  ],
  remove: {
    label: 'Delete category',
    question: (c) => `Delete the category "${c.name}"? Its listings stay on the storefront.`,
    done: 'Category deleted',
    inForm: true,
  },
  dialog: { title: (c) => (c ? `Category: ${c.name}` : 'New category'), wide: true },
  form: {
    values: (c) => ({ name: c?.name ?? '', listingIds: c?.listingIds ?? [] }),
    toBody: (v) => v,
    saved: (c) => (c ? 'Category saved' : 'Category created'),
    Fields: CategoryFields,
  },
};

export default function CategoriesScreen() {
  return <ResourceScreen config={config} />;
}

function CategoryFields({ form }: { form: BodyForm<CategoryValues, unknown> }) {
  const { shopId } = useShop();
  const names = useListingNames(shopId);
  const { field } = useController({ control: form.control, name: 'listingIds' });
  return (
    <>
      <Field label="Name" error={form.problem('name')}>
        {(ids) => <input {...ids} {...form.register('name')} className="input" />}
      </Field>
      <Picker
        noun="listing"
        legend="Listings in the category"
        chosen={field.value}
        onChange={field.onChange}
        names={names}
        error={form.problem('listingIds')}
        searchKey={queryKeys.listings.picker(shopId)}
        search={async (text) => {
          const page = await searchListings(shopId, text, 20);
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
    </>
  );
}
