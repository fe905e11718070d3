import { useController } from 'react-hook-form';
import { type Category, categories } from '../../api/queries/categories';
import { queryKeys } from '../../api/queries/keys';
import { searchListings, useAllListings } from '../../api/queries/listings';
import { useShop } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Field } from '../../ui/Field';
import { count } from '../../ui/format';
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
  title: strings.common.categories,
  addLabel: strings.categories.addCategory,
  intro: strings.categories.aCategoryGathersStorefront,
  searchLabel: strings.categories.searchCategories,
  caption: strings.common.categories,
  empty: (search) => (search ? strings.categories.noCategoryMatchesThis : strings.categories.noCategoriesYet),
  rowKey: (c) => c.id,
  columns: (open) => [
    {
      header: strings.common.name,
      cell: (c) => (
        <button type="button" className="catalog-link" onClick={() => open(c)}>
          {c.name}
        </button>
      ),
    },
    { header: strings.categories.listings, className: 'num', cell: (c) => count(c.listingIds.length) },
    { header: strings.categories.firstListings, cell: (c) => <FirstListings category={c} /> },
    { header: strings.common.updated, cell: (c) => <ShopTime iso={c.updatedAt} /> },
  ],
  remove: {
    label: strings.categories.deleteCategory,
    question: (c) => strings.categories.deleteTheCategoryIts(c.name),
    done: strings.categories.categoryDeleted,
    inForm: true,
  },
  dialog: { title: (c) => (c ? strings.categories.category(c.name) : strings.categories.newCategory), wide: true },
  form: {
    values: (c) => ({ name: c?.name ?? '', listingIds: c?.listingIds ?? [] }),
    toBody: (v) => v,
    saved: (c) => (c ? strings.categories.categorySaved : strings.categories.categoryCreated),
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
      <Field label={strings.common.name} error={form.problem('name')}>
        {(ids) => <input {...ids} {...form.register('name')} className="input" />}
      </Field>
      <Picker
        noun={strings.categories.listing}
        legend={strings.categories.listingsInTheCategory}
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
